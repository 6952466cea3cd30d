"""The half-asleep double tap, proved by exhaustion (SPEC D15, issue 53).

At each phase of Tonight (no Dose 1, before the window, the window open, near its close, after it, slept through, just
after Dose 2 with its Undo, after Dose 2, awake, a Wake Up in the grid while Dose 2 is pending, once nightly before and
after the dose, each question a tap opens, offline, and a caregiver's Tonight), every control that acts is tapped twice
at the same point, `GAPS` seconds apart, as a half-asleep finger does. Each trial starts from the phase's own store and
a fresh page, on a server whose clock starts at the phase's instant and runs on (`serve --now … --clock-runs`).

A reference trial taps each control once. Every double tap must then leave:
  - the store holding exactly what the one tap made (the night's events, sessions, check-ins and audit; offline, the
    phone's queue);
  - the page saying the same as after the one tap (its heading, the status box, the big button's spot, the row under
    it, the notices, an open question, the address);
and during the reference tap's 3 s nothing new that acts may become visible within the tapped control's area or 48 px
around it (SPEC D15: not Undo, not a question's answer, not a grid button the page moved).

The CI form taps every control of every phase once, then twice at two gaps chosen in turn from the seven (so each gap is
met across the controls), and two of the eight grid buttons per phase; `scripts/tap-sweep.sh` runs the full form: every
control at every gap. Either prints the matrix (phases × controls × gaps) with its counts.
"""
import datetime, json, os, re, shutil, sqlite3, subprocess, threading, time, urllib.parse, urllib.request
from dataclasses import dataclass, field

from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By

import scenarios

GAPS = [0.1, 0.3, 0.6, 0.8, 1.2, 1.8, 2.5]
SETTLE = 3.0
MARGIN = 48
ZONE = "America/New_York"
DOSE1 = scenarios.DOSE1
# Every control that acts: buttons, links that look like buttons, the tabs, and a question's answers; with a question
# open, only its answers (the page behind it takes no tap).
CONTROLS = "main button, main a.button, main a[href], nav.tabs a, nav.people a"
ANSWERS = "dialog[open] button, .question-layer button, .question-layer a"


def selector(phase):
    return ANSWERS if phase.opener else CONTROLS


@dataclass
class Phase:
    """One state of Tonight: how its store is made, when it is served, and what is tapped first to open a question."""
    name: str
    minutes: float
    commands: list = field(default_factory=list)
    path: str = "/"
    opener: str = None
    offline: bool = False
    tabs: bool = False
    # Labels of controls this phase leaves to another (the tabs are the same everywhere; a question's page repeats the
    # phase it opened from).
    only: list = None


def at(minutes):
    return (DOSE1 + datetime.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


def phases():
    """Tonight's phases, each with the commands that make its store (minutes after Dose 1 at 22:30 New York time)."""
    dose1 = [["dose1", "--now", at(0)]]
    twice = [["setup", "--accept-disclaimer", "--now", at(-60)]]
    once = [["setup", "--regimen", "once_nightly", "--dose1", "6", "--accept-disclaimer", "--now", at(-60)]]
    wake_in_grid = [["settings", "set", "quick_log", "bathroom,water,wake_temp,lights_out,anxiety,dream,wake_final,pain", "--now", at(-59)]]
    dose2 = [["dose2", "--now", at(170)]]
    answers = ["Take it anyway", "Cancel", "Skip Dose 2", "End the night", "Keep the night", "Yes, I'm up", "Keep sleeping"]
    return [
        Phase("no Dose 1", -30, twice),
        Phase("before the window", 100, twice + dose1),
        Phase("window open", 170, twice + dose1, tabs=True),
        Phase("near the close", 230, twice + dose1),
        Phase("after the window", 250, twice + dose1),
        Phase("slept through", 280, twice + dose1),
        Phase("just after Dose 2", 170.02, twice + dose1 + dose2, path=f"/?did=dose2&until={urllib.parse.quote(at(170 + 5 / 60))}", only=["Undo"]),
        Phase("after Dose 2", 175, twice + dose1 + dose2),
        Phase("awake", 200, twice + dose1 + dose2 + [["wake", "--yes", "--now", at(195)]]),
        Phase("Wake Up in the grid, Dose 2 pending", 170, twice + wake_in_grid + dose1),
        Phase("once nightly, before the dose", -30, once),
        Phase("once nightly, after the dose", 30, once + dose1),
        Phase("question: an early Dose 2", 100, twice + dose1, opener="Take Dose 2 early…", only=answers),
        Phase("question: a late Dose 2", 250, twice + dose1, opener="Take Dose 2 late…", only=answers),
        Phase("question: Wake Up, Dose 2 pending (D16)", 170, twice + wake_in_grid + dose1, opener="Wake Up", only=answers),
        Phase("question: Wake Up after Dose 2 (D15)", 175, twice + dose1 + dose2, opener="Wake Up", only=answers),
        Phase("offline, window open", 165, twice + dose1, offline=True),
    ]


def critical(label):
    """A control whose second tap could do harm: a dose, its skip or snooze, Undo, Wake Up, a question's answer."""
    return any(word in label for word in ("Dose", "Undo", "Wake Up", "Skip", "Snooze", "dose", "anyway", "night", "I'm up", "Cancel", "Keep"))


def plan(controls, full, offset):
    """The gaps each control is tried at: all of them in the full form; else, in turn so that the CI form meets every gap,
    two for a control whose second tap could do harm and one for the rest."""
    if full:
        return {label: list(GAPS) for label in controls}
    chosen, turn = {}, offset
    for label in controls:
        count = 2 if critical(label) else 1
        chosen[label] = [GAPS[(turn + i) % len(GAPS)] for i in range(count)]
        turn += count
    return chosen


GRID = ["Bathroom", "Water", "Brief Wake", "Lights Out", "Anxiety", "Dream", "Noise", "Pain"]


# Controls that do the same in every phase (links and the page's own switches): the CI form taps each in the first phase
# that shows it; the full form in every phase.
COMMON = {"Meds", "Alarms", "Dim", "Pre-sleep", "Check-in", "Tonight", "Details", "History", "Insights", "Settings"}


def chosen_controls(found, full, seen=None):
    """Every control found, or in the CI form two of the eight grid buttons (they act alike), and each common control
    once (`seen` keeps those already chosen)."""
    if full:
        return list(found)
    chosen = []
    for control in found:
        if control in GRID and control not in ("Bathroom", "Pain"):
            continue
        if seen is not None and control in COMMON:
            if control in seen:
                continue
            seen.add(control)
        chosen.append(control)
    return chosen


# ---- the store and the page, as a trial reads them ---------------------------------------------------------------------

def store_digest(database):
    """What a tap can change, without ids or times: the night's events in order, the sessions, check-ins and the audit."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        doses = db.execute("SELECT event_type, source, json_extract(metadata, '$.confirmations') FROM dose_events ORDER BY occurred_at, recorded_at").fetchall()
        sleep = db.execute("SELECT event_type FROM sleep_events ORDER BY occurred_at, recorded_at").fetchall()
        sessions = db.execute("SELECT count(*), count(ended_at) FROM sleep_sessions").fetchone()
        checkins = db.execute("SELECT count(*) FROM morning_checkins").fetchone()
        audit = db.execute("SELECT action, count(*) FROM audit_log GROUP BY action ORDER BY action").fetchall()
    return json.dumps({"doses": doses, "sleep": sleep, "sessions": sessions, "checkins": checkins, "audit": audit})


def queue_digest(driver):
    """Offline, the store is the phone's queue: what waits to be sent, without ids or times."""
    taps = driver.execute_async_script("DoseTapQueue.waiting().then(arguments[0]).catch(() => arguments[0]([]))")
    return json.dumps(sorted((t["action"], t.get("event") or "", ",".join(t.get("confirm") or [])) for t in taps))


PAGE_WORDS = """
// textContent, not innerText: a control held hidden under a settling finger still counts as what the page says. How long
// ago something was moves with the clock between a reference tap and a trial, not with the tap: left out.
const text = (node) => node ? node.textContent.replace(/\\s+/g, ' ').replace(/Undo \\d+ s/, 'Undo').replace(/\\b(\\d+ h )?\\d+ (min|h) ago/g, 'ago').trim() : '';
const shown = (node) => node && node.getClientRects().length && getComputedStyle(node).visibility !== 'hidden';
const variant = document.querySelector('[data-variant]:not([hidden])');
const dialog = document.querySelector('dialog[open]');
const ring = document.querySelector('[data-ring]');
return JSON.stringify({
  path: location.pathname,
  heading: text(document.querySelector('main h1')),
  status: ring ? 'ring: ' + text(ring.querySelector('[data-caption]')) : text(document.querySelector('[data-status-box]')),
  spot: variant ? text(variant.querySelector('[data-spot]')) : '',
  row: variant ? text(variant.querySelector('[data-row]')) : '',
  // An alarm ringing is the clock's doing, not the tap's: its banner is left out (what appears under the finger is
  // judged on its own).
  notices: Array.from(document.querySelectorAll('[data-notices] > *:not(#reminder-banner):not([data-on-behalf])')).filter(shown).map(text).join(' | '),
  question: dialog ? text(dialog) : text(document.querySelector('.question-layer')),
  nightstand: document.body.classList.contains('nightstand'),
  alarms: (document.querySelector('[data-enable-alarms]') || {}).textContent || '',
});
"""


def quit_all(drivers):
    """Quits every browser; one that does not answer within 30 s (seen once, with its page's stream open) has its
    chromedriver killed, so a sweep never hangs on its own clean-up."""
    for driver in drivers:
        closing = threading.Thread(target=driver.quit, daemon=True)
        closing.start()
        closing.join(30)
        if closing.is_alive():
            print("a browser did not quit within 30 s; its chromedriver is killed")
            driver.service.process.kill()


def page_words(driver):
    return json.loads(driver.execute_script(PAGE_WORDS))


FIND = """
const label = arguments[0], selector = arguments[1];
const shown = (node) => node.getClientRects().length && getComputedStyle(node).visibility !== 'hidden';
const name = (node) => node.textContent.replace(/\\s+/g, ' ').replace(/ \\d+ s$/, '').trim();
const found = Array.from(document.querySelectorAll(selector)).filter(shown);
if (label === null) return found.filter((n) => !n.disabled).map(name);
const node = found.find((n) => name(n) === label);
if (!node) return null;
const r = node.getBoundingClientRect();
return { x: r.left + r.width / 2, y: r.top + r.height / 2, box: [r.left, r.top, r.width, r.height] };
"""

AROUND = """
const zone = arguments[0], selector = arguments[1], margin = arguments[2];
const shown = (node) => node.getClientRects().length && getComputedStyle(node).visibility !== 'hidden';
return Array.from(document.querySelectorAll(selector)).filter(shown).map((node) => {
  const r = node.getBoundingClientRect();
  return { text: node.textContent.replace(/\\s+/g, ' ').replace(/ \\d+ s$/, '').trim(), box: [r.left, r.top, r.width, r.height], disabled: !!node.disabled };
}).filter((c) => c.box[0] < zone[0] + zone[2] + margin && c.box[0] + c.box[2] > zone[0] - margin
  && c.box[1] < zone[1] + zone[3] + margin && c.box[1] + c.box[3] > zone[1] - margin);
"""


def tap(driver, x, y, gap=None):
    """One finger at (x, y) on the screen, once, or twice `gap` seconds apart, wherever the page has gone meanwhile."""
    builder = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    builder.pointer_action.move_to_location(int(x), int(y)).pointer_down().pointer_up()
    if gap is not None:
        builder.pointer_action.pause(gap).move_to_location(int(x), int(y)).pointer_down().pointer_up()
    builder.perform()


def loaded(driver, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if driver.execute_script("return document.readyState") == "complete" and driver.execute_script("return !!document.querySelector('main')"):
                return True
        except Exception:
            pass
        time.sleep(0.05)
    return False


# ---- a phase's store, and a trial on a copy of it ----------------------------------------------------------------------

class Stores:
    """Each phase's store made once from its commands, with a paired browser's token; trials run on copies."""

    def __init__(self, binary, work):
        self.binary, self.work, self.made, self.lock = binary, work, {}, threading.Lock()

    def of(self, phase):
        with self.lock:
            if phase.name in self.made:
                return self.made[phase.name]
            path = os.path.join(self.work, re.sub(r"[^a-z0-9]+", "-", phase.name.lower()) + ".sqlite")
            for command in phase.commands:
                subprocess.run([self.binary, *command, "--db", path, "--tz", ZONE], check=True, capture_output=True)
            token = json.loads(subprocess.run([self.binary, "device", "add", "sweep", "--json", "--db", path, "--now", at(-59)],
                                              check=True, capture_output=True, text=True).stdout)["token"]
            with sqlite3.connect(path) as db:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self.made[phase.name] = (path, token)
            return self.made[phase.name]


class Trial:
    """A server on a fresh copy of a phase's store, its clock running from the phase's instant, and a page on it."""

    def __init__(self, driver, binary, stores, phase, work):
        self.driver, self.phase = driver, phase
        template, token = stores.of(phase)
        self.database = os.path.join(work, f"trial-{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}.sqlite")
        shutil.copyfile(template, self.database)
        arguments = [binary, "serve", "--db", self.database, "--port", "0", "--json", "--tz", ZONE, "--now", at(phase.minutes),
                     "--clock-runs", "--rate-limit", "100000"]
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.base = json.loads(self.process.stdout.readline())["listening"]
        driver.get(self.base + "/manifest.webmanifest")
        driver.delete_all_cookies()
        driver.add_cookie({"name": "dosetap_device", "value": token, "path": "/"})
        if phase.offline:
            driver.get(self.base + phase.path)
            scenarios.controlled(driver, scenarios.patient(driver))
            self.process.kill()
            self.process.wait(10)
            driver.get(self.base + phase.path)
            scenarios.patient(driver).until(lambda d: "Offline" in d.find_element(By.ID, "offline-banner").text)
        else:
            driver.get(self.base + phase.path)
        loaded(driver)
        if phase.opener:
            opener = driver.execute_script(FIND, phase.opener, CONTROLS)
            tap(driver, opener["x"], opener["y"])
            # The person reads the question, whose answers take no tap in their first second. An answer lying under the
            # opener's finger would stay hidden for 3 s: the reference tap then does nothing, and judge() says so.
            time.sleep(1.2)

    def digest(self):
        return queue_digest(self.driver) if self.phase.offline else store_digest(self.database)

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        for suffix in ("", "-wal", "-shm"):
            try:
                os.remove(self.database + suffix)
            except FileNotFoundError:
                pass


def controls_of(driver, binary, stores, phase, work):
    """The labels of the phase's enabled controls, in the page's order (a question's page: its answers)."""
    trial = Trial(driver, binary, stores, phase, work)
    try:
        found = driver.execute_script(FIND, None, selector(phase))
    finally:
        trial.close()
    labels = []
    for label in found:
        if not label or label in labels:
            continue
        if phase.only is not None and label not in phase.only:
            continue
        if phase.only is None and not phase.tabs and label in ("Tonight", "Details", "History", "Insights", "Settings"):
            continue
        labels.append(label)
    return labels


def run_trial(driver, binary, stores, phase, label, gap, work):
    """One trial: the control tapped once (gap None) or twice; returns what it left and what it saw under the finger."""
    trial = Trial(driver, binary, stores, phase, work)
    try:
        target = driver.execute_script(FIND, label, selector(phase))
        if target is None:
            return {"missing": True}
        appeared = observe(driver, target, gap)
        return {"store": trial.digest(), "page": page_words(driver), "appeared": appeared}
    finally:
        trial.close()


def observe(driver, target, gap):
    """Taps `target` once (gap None) or twice, and waits for what it does. After one tap, watches its 3 s: what new
    control that acts became visible within the tapped control's area or 48 px around it (there should be none)."""
    before = driver.execute_script(AROUND, target["box"], CONTROLS + ", " + ANSWERS, MARGIN)
    started = time.time()
    tap(driver, target["x"], target["y"], gap)
    appeared = []
    if gap is None:
        while time.time() - started < SETTLE - 0.2:
            try:
                loaded(driver, 2)
                now = driver.execute_script(AROUND, target["box"], CONTROLS + ", " + ANSWERS, MARGIN)
            except Exception:
                continue
            for control in now:
                same = any(c["text"] == control["text"] and abs(c["box"][0] - control["box"][0]) < 4 and abs(c["box"][1] - control["box"][1]) < 4
                           for c in before)
                if not same and not control["disabled"] and control["text"] not in appeared:
                    appeared.append(control["text"])
            time.sleep(0.1)
    else:
        time.sleep(1.0)
    loaded(driver)
    time.sleep(0.3)
    loaded(driver)
    return appeared


# ---- the sweep ---------------------------------------------------------------------------------------------------------

def sweep(binary, work, full=False, workers=3, only=None, report=print):
    """Runs every trial of every phase (or those named in `only`) on `workers` browsers; returns the matrix and failures."""
    stores = Stores(binary, work)
    chosen = [p for p in phases() if not only or any(o in p.name for o in only)]
    drivers = [scenarios.browser() for _ in range(workers)]
    try:
        # Each phase's controls, found on its own page.
        controls, seen = {}, set()
        for index, phase in enumerate(chosen):
            controls[phase.name] = chosen_controls(controls_of(drivers[0], binary, stores, phase, work), full, seen)
        tasks = []
        for index, phase in enumerate(chosen):
            gaps = plan(controls[phase.name], full, index)
            for label in controls[phase.name]:
                tasks.append((phase, label, None))
                tasks += [(phase, label, gap) for gap in gaps[label]]
        results, lock, queue = {}, threading.Lock(), list(tasks)
        references = {}

        def work_on(driver):
            while True:
                with lock:
                    if not queue:
                        return
                    # References first: every double tap is judged against its control's single tap.
                    task = queue.pop(0)
                phase, label, gap = task
                try:
                    outcome = run_trial(driver, binary, stores, phase, label, gap, work)
                except Exception as error:  # a trial that breaks is a failure of its own, reported, not a stop
                    outcome = {"error": f"{type(error).__name__}: {str(error)[:160]}"}
                with lock:
                    results[(phase.name, label, gap)] = outcome

        started = time.time()
        threads = [threading.Thread(target=work_on, args=(driver,)) for driver in drivers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.time() - started
    finally:
        quit_all(drivers)
    return judge(chosen, controls, results, full, elapsed, report)


def judge(chosen, controls, results, full, elapsed, report):
    """Each double tap against its control's single tap; prints the matrix and returns the failures."""
    failures, rows, trials = [], [], 0
    for phase in chosen:
        for label in controls[phase.name]:
            reference = results.get((phase.name, label, None), {"error": "no reference"})
            cells = []
            if "error" in reference or reference.get("missing"):
                failures.append(f"{phase.name} / {label}: the single tap failed ({reference})")
            elif phase.opener and reference["page"].get("question"):
                # One tap on an answer must answer: a question still open means the tap never reached it.
                failures.append(f"{phase.name} / {label}: one tap on the answer left the question open ({reference['page']['question'][:80]})")
            for control in reference.get("appeared", []):
                failures.append(f"{phase.name} / {label}: '{control}' appeared under the finger within 3 s of the tap")
            for gap in GAPS:
                result = results.get((phase.name, label, gap))
                if result is None:
                    cells.append("·")
                    continue
                trials += 1
                problem = None
                if "error" in result or result.get("missing"):
                    problem = str(result)
                elif result["store"] != reference.get("store"):
                    problem = f"the store holds {result['store']} instead of one tap's {reference.get('store')}"
                elif result["page"] != reference.get("page"):
                    differ = {k: (result["page"][k], reference["page"].get(k)) for k in result["page"] if result["page"][k] != reference["page"].get(k)}
                    problem = f"the page says {differ}"
                cells.append("ok" if problem is None else "FAIL")
                if problem:
                    failures.append(f"{phase.name} / {label} / {gap} s: {problem}")
            rows.append((phase.name, label, reference.get("appeared") == [] and "error" not in reference, cells))
    report(matrix(rows, trials, len(failures), full, elapsed))
    return rows, failures


def matrix(rows, trials, failed, full, elapsed):
    """The matrix as a Markdown table: one row per phase and control, one column per gap."""
    lines = [f"Double taps at {', '.join(f'{g:g}' for g in GAPS)} s: {len(rows)} controls in {len({r[0] for r in rows})} phases, "
             f"{trials} double taps and {len(rows)} single taps, {failed} failed ({'full' if full else 'CI'} form, {elapsed:.0f} s).",
             "", "| phase | control | nothing new under the finger | " + " | ".join(f"{g:g} s" for g in GAPS) + " |",
             "|---|---|---|" + "---|" * len(GAPS)]
    for phase, label, clear, cells in rows:
        lines.append(f"| {phase} | {label} | {'ok' if clear else 'FAIL'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ---- a caregiver's Tonight, on a shared PostgreSQL store ----------------------------------------------------------------

class Care:
    """Bob, who logs for the people who share with him: a shared store in a schema of its own, one Alice per trial (each
    with the phase's night), and one server for them all, its clock running from 165 minutes after their Dose 1."""

    def __init__(self, binary, base_url, work):
        self.binary, self.work = binary, work
        self.schema = f"sweepcare_{os.getpid()}_{int(time.time())}"
        self.url = base_url + ("&" if "?" in base_url else "?") + "search_path=" + self.schema
        self.base_url = base_url
        self.environment = {**os.environ, "DOSETAP_DATABASE_URL": self.url}
        self.port = scenarios.free_port()
        self.here = f"http://127.0.0.1:{self.port}"
        self.count, self.lock = 0, threading.Lock()
        bob = json.loads(self.run("person", "add", "bob@example.org", "--name", "Bob", "--json"))
        self.bob = json.loads(self.run("device", "add", "bob-phone", "--person", "bob@example.org", "--json"))["token"]
        self.bob_id = bob["id"]

    def run(self, *arguments):
        return subprocess.run([self.binary, *arguments, "--tz", ZONE], env=self.environment, capture_output=True, text=True, check=True).stdout

    def alice(self, phase):
        """A new Alice with the phase's night, and her token (the share is made once the server runs)."""
        with self.lock:
            self.count += 1
            number = self.count
        email = f"alice{number}@example.org"
        person = json.loads(self.run("person", "add", email, "--name", f"Alice {number}", "--json"))
        self.run("setup", "--accept-disclaimer", "--person", email, "--now", at(-60))
        for command in phase.commands:
            self.run(*command, "--person", email)
        token = json.loads(self.run("device", "add", "phone", "--person", email, "--json"))["token"]
        return {"id": person["id"], "email": email, "token": token}

    def serve(self):
        served, extra = scenarios.served_as_hosted(self.binary, self.environment)
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--json", "--now", at(165), "--clock-runs", "--tz", ZONE, "--rate-limit", "100000",
             *extra],
            env=served, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.process.stdout.readline()

    def share(self, alice):
        """Alice invites Bob with `log` and `alarms`, and Bob accepts: her night is his to log."""
        def call(path, token, body):
            request = urllib.request.Request(self.here + path, method="POST", data=json.dumps(body).encode(),
                                             headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
            with urllib.request.urlopen(request) as answer:
                return json.loads(answer.read())
        invite = call("/v1/shares", alice["token"], {"email": "bob@example.org", "grants": ["log", "alarms"]})
        token = urllib.parse.parse_qs(urllib.parse.urlsplit(invite["invite_url"]).query).get("token", [invite["invite_url"].rsplit("/", 1)[-1]])[0]
        call("/v1/invitations/accept", self.bob, {"token": token})

    def digest(self, alice):
        """Alice's night, as the store keeps it: her events with who gave each, without ids or times."""
        sql = (f"SET search_path TO {self.schema}; "
               f"SELECT event_type || ':' || source || ':' || coalesce(metadata::jsonb->>'acted_by', '') FROM dose_events "
               f"WHERE person_id = '{alice['id']}' ORDER BY occurred_at, recorded_at; "
               f"SELECT event_type FROM sleep_events WHERE person_id = '{alice['id']}' ORDER BY occurred_at, recorded_at; "
               f"SELECT count(*) || ' nights, ' || count(ended_at) || ' ended' FROM sleep_sessions WHERE person_id = '{alice['id']}';")
        return subprocess.run(["psql", self.base_url.split("?")[0], "-At", "-c", sql], capture_output=True, text=True, check=True).stdout

    def close(self):
        if getattr(self, "process", None):
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def care_phases():
    dose1 = [["dose1", "--now", at(0)]]
    return [
        Phase("a caregiver's Tonight, window open", 165, dose1),
        Phase("a caregiver's Tonight, after Dose 2", 165, dose1 + [["dose2", "--now", at(164)]]),
    ]


def care_sweep(binary, work, base_url, full=False, workers=2, report=print):
    """The caregiver's phases: every control of Bob's Tonight for Alice, tapped once and twice as for the person."""
    care = Care(binary, base_url, work)
    drivers = []
    try:
        chosen = care_phases()
        # Each trial has an Alice of its own; the first of each phase shows the controls.
        scouts = {phase.name: care.alice(phase) for phase in chosen}
        care.serve()
        for alice in scouts.values():
            care.share(alice)
        drivers = [scenarios.browser() for _ in range(workers)]

        def open_page(driver, alice):
            driver.get(care.here + "/manifest.webmanifest")
            driver.add_cookie({"name": "dosetap_device", "value": care.bob, "path": "/"})
            driver.execute_script("sessionStorage.clear()")
            driver.get(f"{care.here}/people/{alice['id']}/")
            loaded(driver)

        controls, tasks = {}, []
        for index, phase in enumerate(chosen):
            open_page(drivers[0], scouts[phase.name])
            found = drivers[0].execute_script(FIND, None, "main button, main a.button, main a[href]")
            controls[phase.name] = chosen_controls([c for c in dict.fromkeys(found) if c], full)
            gaps = plan(controls[phase.name], full, index)
            for label in controls[phase.name]:
                for gap in [None] + gaps[label]:
                    alice = care.alice(phase)
                    care.share(alice)
                    tasks.append((phase, label, gap, alice))
        results, lock, queue = {}, threading.Lock(), list(tasks)

        def work_on(driver):
            while True:
                with lock:
                    if not queue:
                        return
                    phase, label, gap, alice = queue.pop(0)
                try:
                    open_page(driver, alice)
                    target = driver.execute_script(FIND, label, "main button, main a.button, main a[href]")
                    if target is None:
                        outcome = {"missing": True}
                    else:
                        appeared = observe(driver, target, gap)
                        words = page_words(driver)
                        words["path"] = words["path"].replace(alice["id"], "{id}")
                        outcome = {"store": care.digest(alice), "page": words, "appeared": appeared}
                except Exception as error:
                    outcome = {"error": f"{type(error).__name__}: {str(error)[:160]}"}
                with lock:
                    results[(phase.name, label, gap)] = outcome

        started = time.time()
        threads = [threading.Thread(target=work_on, args=(driver,)) for driver in drivers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return judge(chosen, controls, results, full, time.time() - started, report)
    finally:
        quit_all(drivers)
        care.close()
