"""Real-browser test of the web UI with Debian's chromium and chromium-driver through selenium.

Pairs a browser, takes Dose 1, sees the live countdown, undoes within the window, takes it again, confirms an early
Dose 2 through the dialog, logs a bathroom trip and is refused a second one inline; double-taps Take Dose 2 (the night
stays open), confirms an early wake-up, checks in, and is refused a new Dose 1 (D14); pairs a second browser in the
same minute by scanning the QR code on Settings (zbar); screenshots every page at 390×844 (Tonight without scrolling, no page wider than the screen), runs axe-core
on every page (no serious or critical violation) and measures contrast (text ≥ 4.5:1, actions and timer ≥ 7:1).
Each scenario is a function of its own (driver, binary, a work folder, the screenshot folder); the pytest modules
beside this file run each one alone with a fresh browser: `python3 -m pytest scripts/browser --binary PATH`.
"""
import argparse, datetime, json, os, re, shutil, sqlite3, subprocess, sys, tempfile, time, urllib.parse, urllib.request

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

WIDTH, HEIGHT = 390, 844
# The folder of the scripts the scenarios run beside the binary (the push service stand-in, the month of nights).
SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failures = []
# A form post replaces the page; an element found just before may go stale, so the waits look again. Chromium
# sometimes reports a stale node as a plain WebDriverException ("Node with given id does not belong to the
# document") when the page is replaced between finding an element and reading it; a real failure still ends the
# wait with a timeout.
SETTLE = [NoSuchElementException, StaleElementReferenceException, WebDriverException]


def scanned_qr(driver, out, name):
    """The page's QR code as a phone's camera reads it: the drawn code screenshot, decoded by an independent decoder
    (zbar)."""
    picture = os.path.join(out, name + ".png")
    driver.find_element(By.CSS_SELECTOR, "svg.qr").screenshot(picture)
    return subprocess.run(["zbarimg", "--raw", "-q", picture], capture_output=True, text=True).stdout.strip()


def stop_server(process):
    """Stops a `serve` as SIGTERM does, and kills it if it has not stopped within 20 s, so a walk never hangs on it."""
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        print("FAIL serve did not stop within 20 s of SIGTERM; killed")
        failures.append("serve did not stop within 20 s of SIGTERM")
        process.kill()
        process.wait()


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def evening_zone(instant):
    """A fixed-offset zone in which `instant` falls between 22:00 and 23:00, so a night on the real clock never
    straddles the 18:00 rollover, whatever time of day the test runs (Etc/GMT signs are inverted)."""
    hours = (22 - instant.astimezone(datetime.timezone.utc).hour) % 24
    hours = hours - 24 if hours > 14 else hours
    return "Etc/UTC" if hours == 0 else f"Etc/GMT{-hours:+d}"


def serve(binary, database, now=None, zone="America/New_York", port=0, extra=()):
    arguments = [binary, "serve", "--db", database, "--port", str(port), "--json", "--tz", zone, *extra]
    if now:
        arguments += ["--now", now]
    # The push service under test listens on loopback, which only this documented test flag allows.
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env={**os.environ, "DOSETAP_ALLOW_LOOPBACK_TARGETS": "1"})
    line = process.stdout.readline()
    info = json.loads(line)
    return process, info


def browser(home=None):
    """Chromium at 390×844; with `home`, reading the NSS database (trusted CAs) under home/.pki."""
    if home:
        previous = os.environ.get("HOME")
        os.environ["HOME"] = home
        try:
            return browser()
        finally:
            os.environ["HOME"] = previous or ""
    options = webdriver.ChromeOptions()
    for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars", f"--window-size={WIDTH},{HEIGHT}"]:
        options.add_argument(flag)
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": WIDTH, "height": HEIGHT, "pixelRatio": 2}})
    binary = "/usr/bin/chromium"
    if os.path.exists(binary):
        options.binary_location = binary
    driver_path = "/usr/bin/chromedriver"
    return webdriver.Chrome(service=Service(driver_path) if os.path.exists(driver_path) else None, options=options)


def fits(driver):
    return driver.execute_script("return document.documentElement.scrollHeight <= window.innerHeight + 1 && document.documentElement.scrollWidth <= window.innerWidth + 1")


def primary(driver):
    """The big button of the stretch of the night on screen (the page holds one per Dose 2 period, the others hidden)."""
    return driver.find_element(By.CSS_SELECTOR, "[data-variant]:not([hidden]) [data-spot] button.primary, [data-variant]:not([hidden]) [data-spot] a.primary, .question .primary")


def apart(driver):
    """Waits until the page's last tap has settled (3 s, D15), so the next tap is a tap of its own, not the second of a
    double: near the last one the page takes none sooner, and after a tap the server takes none but Undo."""
    patient(driver, 8).until(lambda d: d.execute_script(
        "const t = JSON.parse(sessionStorage.getItem('dosetap-last-tap') || '{\"t\":0}').t; return Date.now() - t > 3150"))
    settled(driver)


def answerable(driver):
    """Waits out the first second of a question a tap opened, in which it takes no answer (D15)."""
    WebDriverWait(driver, 5).until(lambda d: d.execute_script(
        "const q = document.querySelector('dialog[open]'); return !q || !('answering' in q.dataset)"))


def settled(driver):
    """Waits out D15's 3 s in which a page drawn after a tap takes no tap but Undo (its shield hides itself then)."""
    WebDriverWait(driver, 8).until(lambda d: d.execute_script(
        "const s = document.querySelector('[data-settle]'); return !s || getComputedStyle(s).visibility === 'hidden'"))


def narrow(driver):
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")


# Contrast of every visible text and of actions and the timer, computed from the rendered colours (WCAG 2 formula).
CONTRAST = """
const lum = (c) => { const m = c.match(/[\\d.]+/g).map(Number); const ch = m.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]; };
const alpha = (c) => { const m = c.match(/[\\d.]+/g); return m.length > 3 ? Number(m[3]) : 1; };
const background = (node) => { for (let n = node; n; n = n.parentElement) { const bg = getComputedStyle(n).backgroundColor; if (alpha(bg) > 0.5) return bg; } return "rgb(0, 0, 0)"; };
const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
const out = [];
for (const node of document.querySelectorAll("body *")) {
  const rect = node.getBoundingClientRect(); const style = getComputedStyle(node);
  if (!rect.width || !rect.height || style.visibility === "hidden" || style.display === "none" || node.closest("dialog:not([open]), [hidden], .sr-only")) continue;
  const own = [...node.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim());
  if (!own) continue;
  const isSvgText = node instanceof SVGElement;
  const fg = isSvgText ? style.fill : style.color;
  if (!fg.startsWith("rgb")) continue;
  const action = !!node.closest("button, a.button, .chip, [data-ring]");
  out.push({ text: node.textContent.trim().slice(0, 40), ratio: ratio(fg, background(node)), action: action });
}
return out;
"""


def audit(driver, name, out):
    """Screenshot, width, axe-core and contrast checks of the page on screen."""
    driver.save_screenshot(os.path.join(out, f"{name}.png"))
    check(narrow(driver), f"{name}: nothing wider than the 390 px screen")
    axe = Axe(driver)
    try:
        axe.inject()
        results = axe.run()
    except Exception:
        # The page may reload when tonight changes (the status stream); audit the page that is there now.
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
        axe.inject()
        results = axe.run()
    bad = [v["id"] for v in results["violations"] if v.get("impact") in ("serious", "critical")]
    where = [n["html"][:120] for v in results["violations"] if v["id"] in bad for n in v["nodes"]][:2]
    check(not bad, f"{name}: axe-core finds no serious or critical violation {bad} {where if bad else ''}")
    texts = driver.execute_script(CONTRAST)
    low = [t for t in texts if t["ratio"] < (7 if t["action"] else 4.5)]
    worst = min((t["ratio"] for t in texts), default=21)
    check(not low, f"{name}: contrast ≥ 4.5:1 on text, ≥ 7:1 on actions and timer (lowest {worst:.1f}:1) {low[:3]}")


DOSE1 = datetime.datetime(2026, 11, 22, 3, 30, tzinfo=datetime.timezone.utc)


def first_run_setup(driver, wait, info, out):
    """A fresh database opens on setup; the five steps are done as a person would, then Tonight; a second visit goes
    straight to Tonight."""
    wait.until(lambda d: "Step 1 of 5" in d.page_source)
    check(driver.current_url.endswith("/welcome"), "a fresh database opens on setup, not on Tonight")
    def submit():
        # Each step's button sits where the last one was: a click within D15's 0.6 s on the same spot is not a tap of
        # its own, and the page rightly ignores it.
        apart(driver)
        driver.find_element(By.CSS_SELECTOR, "form.questions button[type=submit]").click()
    audit(driver, "welcome-1-schedule", out)
    bedtime = driver.find_element(By.ID, "sleep_start")
    driver.execute_script("arguments[0].value = '22:30'", bedtime)
    submit()
    wait.until(lambda d: "Step 2 of 5" in d.page_source)
    audit(driver, "welcome-2-medication", out)
    dose2 = driver.find_element(By.ID, "dose2_g")
    dose2.clear()
    dose2.send_keys("9")
    submit()
    alert = wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "p.refusal[role=alert]")))
    check("Dose 2 (grams)" in alert.text and "dose2_g" not in alert.text and "Step 2 of 5" in driver.page_source,
          f"a dose above 4.5 g is refused on its step, named as the page names it ({alert.text!r})")
    check(driver.find_element(By.ID, "dose2_g").get_attribute("value") == "9", "and what was typed stays in the field")
    driver.save_screenshot(os.path.join(out, "welcome-2-refused.png"))
    dose2 = driver.find_element(By.ID, "dose2_g")
    dose2.clear()
    dose2.send_keys("2.5")
    submit()
    wait.until(lambda d: "Step 3 of 5" in d.page_source)
    check(driver.find_element(By.CSS_SELECTOR, "svg.window-diagram").is_displayed(), "the dose window is drawn")
    audit(driver, "welcome-3-window", out)
    submit()
    wait.until(lambda d: "Step 4 of 5" in d.page_source)
    driver.execute_script("""
        window.__tones = 0;
        const make = AudioContext.prototype.createOscillator;
        AudioContext.prototype.createOscillator = function () { window.__tones++; return make.call(this); };""")
    # The button sits where the last step's was: it is a tap of its own only once that one has settled (D15).
    apart(driver)
    driver.find_element(By.XPATH, "//button[text()='Send a test alarm']").click()
    report = wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "[data-test-report]")))
    wait.until(lambda d: "Sending" not in d.find_element(By.CSS_SELECTOR, "[data-test-report]").text)
    report = driver.find_element(By.CSS_SELECTOR, "[data-test-report]")
    check("This page: rang" in report.text and "no page is open" not in report.text and driver.execute_script("return window.__tones") >= 3,
          f"the test alarm rings on the page that asked and says how the rest went ({report.text[:90]!r})")
    check(urllib.parse.urlparse(driver.current_url).path == "/welcome", "without leaving the step")
    audit(driver, "welcome-4-notifications", out)
    submit()
    wait.until(lambda d: "Step 5 of 5" in d.page_source)
    audit(driver, "welcome-5-privacy", out)
    driver.find_element(By.CSS_SELECTOR, "input[name=accept_disclaimer]").click()
    submit()
    wait.until(lambda d: "Take Dose 1" in primary(d).text)
    check(urllib.parse.urlparse(driver.current_url).path == "/", "finishing setup lands on Tonight")
    driver.get(info["listening"] + "/")
    check("Take Dose 1" in primary(driver).text and "/welcome" not in driver.current_url, "a second visit goes straight to Tonight")


def supply_page(driver, wait, info, out):
    """The Supply page: a refill of one bottle, then a count that makes the supply low; Tonight then shows the card."""
    driver.get(info["listening"] + "/supply")
    check("No supply logged yet" in driver.page_source, "Supply starts empty")
    driver.find_element(By.XPATH, "//button[text()='Log the refill']").click()
    wait.until(lambda d: "of XYWAV left" in d.page_source)
    driver.find_element(By.ID, "adjust-ml").send_keys("20")
    driver.find_element(By.ID, "adjust-reason").send_keys("counted the bottle")
    apart(driver)
    driver.find_element(By.XPATH, "//button[text()='Save the correction']").click()
    wait.until(lambda d: "Order a refill now" in d.page_source)
    check("Counted: 20 mL left" in driver.page_source, "the count is in the ledger")
    audit(driver, "supply-low", out)
    driver.get(info["listening"] + "/")
    card = driver.find_elements(By.CSS_SELECTOR, ".low-supply a")
    check(card and "nights left" in card[0].text or card and "not enough" in card[0].text, "Tonight shows the low-supply card")
    audit(driver, "tonight-low_supply", out)


def night_at(binary, work, name, minutes, extra=(), database=None, commands=()):
    """A night with Dose 1 at DOSE1 in its own database (unless given one), after `commands` (argument lists run
    against it), served as of `minutes` after it."""
    if database is None:
        database = os.path.join(work, name + ".sqlite")
        subprocess.run([binary, "dose1", "--db", database, "--tz", "America/New_York", "--now", DOSE1.isoformat()], check=True, capture_output=True)
        for command in commands:
            subprocess.run([binary, *command, "--db", database, "--tz", "America/New_York", "--now", DOSE1.isoformat()], check=True, capture_output=True)
    process, info = serve(binary, database, (DOSE1 + datetime.timedelta(minutes=minutes)).isoformat(), extra=extra)
    return database, process, info


def controlled(driver, wait):
    """Waits until the service worker controls the page (a reload lets a newly active worker take it)."""
    wait.until(lambda d: d.execute_script("return !!(navigator.serviceWorker && navigator.serviceWorker.controller)")
               or d.execute_script("location.reload(); return false"))
    # The worker stores Tonight just after answering: wait until the cache holds it.
    driver.get(driver.current_url.split("?")[0])
    wait.until(lambda d: d.execute_async_script("caches.match('/').then(r => arguments[0](!!r)).catch(() => arguments[0](false))"))


def count(database, table, kind):
    with sqlite3.connect(database) as db:
        return db.execute(f"SELECT count(*) FROM {table} WHERE event_type = ?", (kind,)).fetchone()[0]


def patient(driver, seconds=20):
    """A wait that looks again when a replay or a reload replaces the element it was reading."""
    return WebDriverWait(driver, seconds, ignored_exceptions=[NoSuchElementException, StaleElementReferenceException, WebDriverException])


def installed_then_cut_off(driver, binary, work, name, minutes, commands=()):
    """Pairs a browser with a night served as of `minutes` after Dose 1, lets the worker install and keep Tonight,
    then kills the server, as a dropped Wi-Fi or a crash would leave the phone. Returns the database and the address."""
    database, process, info = night_at(binary, work, name, minutes, commands=commands)
    driver.delete_all_cookies()
    driver.get(info["pairing_url"])
    controlled(driver, patient(driver))
    process.kill()
    process.wait(10)
    return database, info["listening"]


def offline(driver, binary, work, out):
    """The installed app without its server (killed, as a dropped Wi-Fi or a crash would leave the phone): the worker's
    copy of Tonight, the countdown on the phone's clock, taps kept on the phone and saved once when the server is back."""
    wait = patient(driver)
    database, base = installed_then_cut_off(driver, binary, work, "offline", 160)
    check(True, "the service worker registers and controls Tonight")
    driver.get(base + "/")
    banner = wait.until(EC.visibility_of_element_located((By.ID, "offline-banner")))
    check("since 01:10" in banner.text and "countdown runs on this phone" in banner.text,
          f"offline, Tonight says so, with the server's last time in the night's zone ({banner.text[:64]!r}…)")
    first = driver.find_element(By.CSS_SELECTOR, "[data-countdown]").text
    caption = driver.find_element(By.CSS_SELECTOR, "[data-caption]").text
    check(caption == "left to take Dose 2", f"the phone finds the window open from the cached periods ({caption!r})")
    check(re.match(r"^1:1\d:\d\d$", first) is not None, f"about 80 minutes left, counted on the phone ({first})")
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-countdown]").text != first)
    check(True, "the offline countdown is live")
    driver.save_screenshot(os.path.join(out, "tonight-offline.png"))
    driver.find_element(By.XPATH, "//form[.//input[@name='event' and @value='bathroom']]//button").click()
    wait.until(lambda d: "Kept on this phone: Bathroom" in d.find_element(By.ID, "offline-banner").text)
    apart(driver)
    driver.find_element(By.XPATH, "//form[.//input[@name='action' and @value='snooze']]//button").click()
    wait.until(lambda d: "needs the server: not saved" in d.find_element(By.ID, "offline-banner").text)
    check(True, "a snooze offline says it needs the server and was not saved")
    apart(driver)
    primary(driver).click()
    wait.until(lambda d: "2 actions are waiting to be saved" in d.find_element(By.ID, "offline-banner").text)
    # Kept, Dose 2 is no longer offered: the big spot says it was kept, and the ring and the alarm line stop saying it is due.
    kept = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-variant]:not([hidden]) [data-kept]")).text
    check(kept.startswith("Dose 2 kept on this phone at 01:1") and "it will be sent" in kept, f"the big spot says the dose was kept ({kept!r})")
    check(not driver.find_elements(By.CSS_SELECTOR, "[data-variant]:not([hidden]) button"), "and offers no dose any more")
    alarms = driver.find_element(By.CSS_SELECTOR, "[data-alarms]").text
    caption = driver.find_element(By.CSS_SELECTOR, "[data-caption]").text
    check("due" not in alarms and "kept" in alarms and caption == "kept on this phone", f"nor is it due ({alarms!r}; ring: {caption!r})")
    check(len(driver.execute_async_script("DoseTapQueue.waiting().then(arguments[0])")) == 2, "the phone holds two actions, one Dose 2")
    check(True, f"a bathroom log and a Dose 2 tapped offline wait on the phone ({driver.find_element(By.ID, 'offline-banner').text[-70:]!r})")
    driver.save_screenshot(os.path.join(out, "tonight-offline-queued.png"))
    port = int(base.rsplit(":", 1)[1])
    process, info = serve(binary, database, (DOSE1 + datetime.timedelta(minutes=170)).isoformat(), port=port)
    try:
        driver.get(base + "/")
        wait.until(lambda d: "Dose 2 taken" in d.find_element(By.TAG_NAME, "main").text)
        check(count(database, "dose_events", "dose2") == 1 and count(database, "sleep_events", "bathroom") == 1,
              "back online, the queued taps are saved once each (one Dose 2, one bathroom in the database)")
        driver.get(base + "/")
        wait.until(lambda d: d.execute_script("return document.readyState") == "complete")
        check(count(database, "dose_events", "dose2") == 1 and count(database, "sleep_events", "bathroom") == 1, "and a second visit saves nothing again")
    finally:
        process.terminate()
        process.wait(10)


def offline_confirmations(driver, binary, work, out):
    """An early Dose 2 tapped offline asks first, like online; a tap the server refuses on replay is shown, not retried."""
    wait = patient(driver)
    database, base = installed_then_cut_off(driver, binary, work, "early", 100)
    driver.get(base + "/")
    wait.until(EC.visibility_of_element_located((By.ID, "offline-banner")))
    early = lambda: driver.find_element(By.XPATH, "//button[text()='Take Dose 2 early…']")
    early().click()
    dialog = wait.until(EC.visibility_of_element_located((By.ID, "risk-dialog")))
    check("opens at 01:00" in dialog.text and "early is unsafe" in dialog.text, f"an early Dose 2 offline asks first ({dialog.text[:80]!r})")
    check(not dialog.find_element(By.CSS_SELECTOR, "[data-risk-skip]").is_displayed(), "and offers no Skip button before the window")
    driver.save_screenshot(os.path.join(out, "tonight-offline-early.png"))
    answerable(driver)
    dialog.find_element(By.CSS_SELECTOR, "[data-risk-no]").click()
    check("waiting" not in driver.find_element(By.ID, "offline-banner").text, "Cancel keeps nothing")
    apart(driver)
    early().click()
    confirm = wait.until(EC.visibility_of_element_located((By.ID, "risk-dialog"))).find_element(By.CSS_SELECTOR, "[data-risk-yes]")
    answerable(driver)  # a question takes no answer in its first second
    confirm.click()
    wait.until(lambda d: "Kept on this phone: Dose 2" in d.find_element(By.ID, "offline-banner").text)
    for _ in range(2):
        # Two taps apart (a double tap inside 0.6 s is one tap): the second is kept, and refused on replay.
        apart(driver)
        driver.find_element(By.XPATH, "//form[.//input[@name='event' and @value='bathroom']]//button").click()
    wait.until(lambda d: "3 actions are waiting" in d.find_element(By.ID, "offline-banner").text)
    process, info = serve(binary, database, (DOSE1 + datetime.timedelta(minutes=110)).isoformat(), port=int(base.rsplit(":", 1)[1]))
    try:
        driver.get(base + "/")
        refused = wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#refused-replays .refusal")))
        check("Not recorded: Bathroom" in refused.text and "was just logged" in refused.text, f"a replay the server refuses is shown ({refused.text[:80]!r})")
        with sqlite3.connect(database) as db:
            early = db.execute("SELECT json_extract(metadata, '$.is_early') FROM dose_events WHERE event_type = 'dose2'").fetchall()
        check(early == [(1,)] and count(database, "sleep_events", "bathroom") == 1, "the confirmed early Dose 2 and one bathroom are saved; the refused one is not")
        driver.save_screenshot(os.path.join(out, "tonight-replay-refused.png"))
        # The page reloads once after the replay; click the Dismiss of the page that stays.
        wait.until(lambda d: d.execute_script("return document.readyState") == "complete")
        settle = WebDriverWait(driver, 20, ignored_exceptions=[NoSuchElementException, StaleElementReferenceException, WebDriverException])
        settle.until(lambda d: d.find_element(By.CSS_SELECTOR, "#refused-replays .refusal button").click() or True)
        settle.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#refused-replays .refusal"))
        driver.get(base + "/")
        wait.until(lambda d: d.execute_script("return document.readyState") == "complete")
        check(not driver.find_elements(By.CSS_SELECTOR, "#refused-replays .refusal") and count(database, "sleep_events", "bathroom") == 1,
              "dismissed, it stays gone and is never retried")
    finally:
        process.terminate()
        process.wait(10)


def midnight_checkin(driver, binary, work, out):
    """D16: Dose 1 at 23:36, the Check-in page at 23:59. It says first that Dose 2 is still to come; Save asks, with
    Keep the night filled; keeping it changes nothing; Tonight offers no Check-in button meanwhile."""
    wait = patient(driver)
    database = os.path.join(work, "midnight.sqlite")
    dose1 = datetime.datetime(2026, 11, 22, 4, 36, tzinfo=datetime.timezone.utc)
    subprocess.run([binary, "dose1", "--db", database, "--tz", "America/New_York", "--now", dose1.isoformat()], check=True, capture_output=True)
    process, info = serve(binary, database, (dose1 + datetime.timedelta(minutes=23)).isoformat())
    try:
        driver.delete_all_cookies()
        driver.get(info["pairing_url"])
        check(not driver.find_elements(By.CSS_SELECTOR, "a[href='/checkin']"), "Tonight offers no Check-in while Dose 2 is undecided")
        driver.get(info["listening"] + "/checkin")
        notice = driver.find_element(By.CSS_SELECTOR, "p.refusal[role=alert]").text
        check("opens at 02:06" in notice and "would end the night" in notice, f"the Check-in page says it before anything is typed ({notice[:70]!r}…)")
        check(len(driver.find_elements(By.CSS_SELECTOR, "form[action='/ui/checkin'] button[type=submit]")) == 1, "the check-in has one Save button")
        audit(driver, "checkin-dose2-pending", out)
        driver.find_element(By.CSS_SELECTOR, "form[action='/ui/checkin'] button.primary").click()
        question = wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, ".question")))
        check("Dose 2 is still to come" in question.text and question.find_element(By.CSS_SELECTOR, ".primary").text == "Keep the night",
              f"Save at midnight asks, with Keep the night the filled choice ({question.text[:60]!r}…)")
        check(fits(driver), "the question fits the screen without scrolling")
        audit(driver, "checkin-asks", out)
        question.find_element(By.CSS_SELECTOR, ".primary").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-live]"))
        status = json.loads(subprocess.run([binary, "status", "--json", "--db", database, "--tz", "America/New_York", "--now", (dose1 + datetime.timedelta(minutes=24)).isoformat()],
                                           check=True, capture_output=True, text=True).stdout)
        check(status["phase"] == "before_window" and status["next_reminder"] is not None and status["dose2_undecided"],
              "Keep the night keeps it: no check-in, the Dose 2 alarm still planned")
        # The grid's Brief Wake never ends the night; a Wake Up sent from an older page asks the same question.
        driver.find_element(By.CSS_SELECTOR, "button[aria-label='Log Brief Wake']").click()
        wait.until(lambda d: "Brief Wake recorded" in d.page_source)
        check(True, "Brief Wake is logged at once and the night goes on")
    finally:
        process.terminate()
        process.wait(10)


def offline_boundary(driver, binary, work, out):
    """Offline across the window's opening: Tonight was kept 8 s before 02:06; with the server gone, the heading, the big
    button and its words change at the boundary on the phone's clock. Dose 2 tapped twice is kept once; meanwhile another
    device records it, and the replay says Saved, never Not saved."""
    wait = patient(driver, 30)
    database, base = installed_then_cut_off(driver, binary, work, "boundary", 149 + 52 / 60,
                                            commands=[["settings", "set", "quick_log", "bathroom,water,wake_temp,wake_final"]])
    driver.get(base + "/")
    wait.until(EC.visibility_of_element_located((By.ID, "offline-banner")))
    check(driver.find_element(By.TAG_NAME, "h1").text == "Waiting for the Dose 2 window", "offline before the window, Tonight waits")
    check(not driver.find_elements(By.CSS_SELECTOR, "[data-variant]:not([hidden]) [data-spot] button"), "with no Dose 2 button in the big spot")
    wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "Dose 2 window open")
    check(primary(driver).text == "Take Dose 2" and primary(driver).is_displayed(), "at 01:00 the heading and the big button change with the period, offline")
    check(driver.find_element(By.CSS_SELECTOR, "[data-caption]").text == "left to take Dose 2", "and the ring counts to the close")
    driver.save_screenshot(os.path.join(out, "tonight-offline-window-opened.png"))
    spot = primary(driver).rect
    ActionChains(driver).double_click(primary(driver)).perform()
    wait.until(lambda d: "Kept on this phone: Dose 2" in d.find_element(By.ID, "offline-banner").text)
    apart(driver)
    # A third tap where the button was: the kept dose stands there in words, and nothing more is kept.
    ActionChains(driver).move_to_element_with_offset(driver.find_element(By.TAG_NAME, "body"), 0, 0).perform()
    driver.execute_script("document.elementFromPoint(arguments[0], arguments[1]).click()", spot["x"] + spot["width"] / 2, spot["y"] + spot["height"] / 2)
    waiting = driver.execute_async_script("DoseTapQueue.waiting().then(arguments[0])")
    check(len(waiting) == 1, f"a double tap and a third tap keep one Dose 2 on the phone ({len(waiting)} waiting)")
    driver.save_screenshot(os.path.join(out, "tonight-offline-already-waiting.png"))
    # D16 offline: a Wake Up from the grid while Dose 2 is to take asks first, Keep the night filled, and keeps nothing.
    apart(driver)
    driver.find_element(By.CSS_SELECTOR, "button[aria-label='Log Wake Up']").click()
    dialog = wait.until(EC.visibility_of_element_located((By.ID, "risk-dialog")))
    check("would end the night" in dialog.text and dialog.find_element(By.CSS_SELECTOR, "[data-risk-no]").text == "Keep the night",
          f"offline, a Wake Up with Dose 2 undecided asks first, Keep the night filled ({dialog.text[:70]!r})")
    driver.save_screenshot(os.path.join(out, "tonight-offline-wake-asks.png"))
    apart(driver)
    dialog.find_element(By.CSS_SELECTOR, "[data-risk-no]").click()
    check(len(driver.execute_async_script("DoseTapQueue.waiting().then(arguments[0])")) == 1, "Keep the night keeps nothing more on the phone")
    # Another phone reached the server first and recorded Dose 2 there.
    subprocess.run([binary, "dose2", "--db", database, "--tz", "America/New_York", "--now", (DOSE1 + datetime.timedelta(minutes=150, seconds=30)).isoformat()],
                   check=True, capture_output=True)
    process, info = serve(binary, database, (DOSE1 + datetime.timedelta(minutes=152)).isoformat(), port=int(base.rsplit(":", 1)[1]))
    try:
        driver.get(base + "/")
        wait.until(lambda d: "Saved: Dose 2" in d.find_element(By.ID, "offline-banner").text)
        text = driver.find_element(By.TAG_NAME, "main").text
        check("Not recorded" not in text and "Not saved" not in text and count(database, "dose_events", "dose2") == 1
              and count(database, "dose_events", "extra_dose") == 0,
              f"the replayed twin says Saved, and one Dose 2 is recorded ({driver.find_element(By.ID, 'offline-banner').text[:70]!r})")
        audit(driver, "tonight-replayed-twin", out)
    finally:
        process.terminate()
        process.wait(10)


def late_night(driver, binary, work, out):
    """D18: a Dose 2 at 250 minutes is worded late, as a warning, on Tonight, History and Details; a slept-through night
    is no dose on Details."""
    database = os.path.join(work, "late.sqlite")
    run = lambda *a: subprocess.run([binary, *a, "--db", database, "--tz", "America/New_York"], check=True, capture_output=True)
    run("dose1", "--now", DOSE1.isoformat())
    run("dose2", "--confirm", "late", "--now", (DOSE1 + datetime.timedelta(minutes=250)).isoformat())
    process, info = serve(binary, database, (DOSE1 + datetime.timedelta(minutes=251)).isoformat())
    try:
        driver.delete_all_cookies()
        driver.get(info["pairing_url"])
        outcome = driver.find_element(By.CSS_SELECTOR, "[data-outcome]")
        heading = driver.find_element(By.TAG_NAME, "h1").text
        check("late (after the window)" in outcome.text and "✓" not in outcome.text and heading == "Dose 2 taken late",
              f"Tonight words a 250-minute Dose 2 as late, with a warning sign ({heading!r}: {outcome.text!r})")
        audit(driver, "tonight-late", out)
        driver.get(info["listening"] + "/history")
        badge = driver.find_element(By.CSS_SELECTOR, ".night .badge").text
        check(badge == "Open · ⚠ Late", f"History calls the night late, not completed ({badge!r})")
        driver.find_element(By.CSS_SELECTOR, ".night summary").click()
        driver.find_element(By.LINK_TEXT, "Details and sleep").click()
        facts = driver.find_element(By.CSS_SELECTOR, ".facts").text
        check("late (after the window)" in facts, f"Details says late ({facts[:80]!r})")
        audit(driver, "details-late", out)
    finally:
        process.terminate()
        process.wait(10)


def past_maximum(driver, binary, work, out):
    """D20: one extra within 9 g, then a dose taken anyway: Tonight offers no dose and says the night holds extra doses,
    History and Details show every dose, and the report flags the night first."""
    database = os.path.join(work, "maximum.sqlite")
    run = lambda *a: subprocess.run([binary, *a, "--db", database, "--tz", "America/New_York"], check=True, capture_output=True)
    at = lambda minutes: (DOSE1 + datetime.timedelta(minutes=minutes)).isoformat()
    run("settings", "set", "dose1_mg", "3000", "--now", at(-600))
    run("settings", "set", "dose2_mg", "3000", "--now", at(-600))
    run("dose1", "--now", at(0))
    run("dose2", "--now", at(170))
    run("dose2", "--confirm", "extra", "--now", at(180))
    refused = subprocess.run([binary, "dose2", "--confirm", "extra", "--db", database, "--tz", "America/New_York", "--now", at(185), "--json"],
                             capture_output=True, text=True)
    check(refused.returncode == 1 and "422_NIGHTLY_MAXIMUM" in refused.stdout, f"a second extra is refused ({refused.stdout[:120]!r})")
    run("event", "took-anyway", "--now", at(186))
    process, info = serve(binary, database, at(190))
    try:
        driver.delete_all_cookies()
        driver.get(info["pairing_url"])
        page = driver.page_source
        check(not driver.find_elements(By.XPATH, "//button[normalize-space()='Take Dose 2']"), "Tonight offers no dose after the night's doses")
        heading = driver.find_element(By.TAG_NAME, "h1").text
        check(heading == "Past tonight's maximum", f"the heading says the night went past its maximum ({heading!r})")
        check("Sleep well" not in page and "No more oxybate tonight. Do not stay alone." in page, "Tonight's big spot says to get help, not to sleep")
        check("The night holds 12 g of oxybate in 4 doses" in page and "call emergency services now" in page, "the help words are on Tonight")
        check(fits(driver), "Tonight fits the screen")
        audit(driver, "tonight-past-maximum", out)
        driver.get(info["listening"] + "/history")
        driver.find_element(By.CSS_SELECTOR, ".night summary").click()
        amounts = driver.find_element(By.CSS_SELECTOR, ".night").text
        check("3 g + 3 g + 3 g extra + 3 g extra" in amounts, f"History's amounts count every dose ({amounts[:160]!r})")
        check("⚠ Past the maximum · Open · On target" in amounts,
              f"History's badge says the night went past its maximum first ({amounts[:80]!r})")
        audit(driver, "history-past-maximum", out)
        driver.find_element(By.LINK_TEXT, "Details and sleep").click()
        facts = driver.find_element(By.TAG_NAME, "main").text
        check("The night holds 12 g of oxybate in 4 doses" in facts and "2 extra doses" in facts, f"Details flags the night ({facts[:300]!r})")
        audit(driver, "details-past-maximum", out)
        driver.get(info["listening"] + "/report/file")
        report = driver.find_element(By.TAG_NAME, "body").text
        check("past the nightly maximum (12 g of 9 g), recorded as taken anyway" in report,
              f"the report flags the night ({report[report.find('past'):][:120]!r})")
        audit(driver, "report-past-maximum", out)
    finally:
        process.terminate()
        process.wait(10)


def once_nightly(driver, binary, work, out):
    """D19: once nightly, Tonight offers "Take tonight's dose", then says the dose is taken, with no window, ring,
    snooze or Dose 2 button; Wake Up asks within 2 hours; History and Details name the regimen's one dose."""
    database = os.path.join(work, "once.sqlite")
    run = lambda *a: subprocess.run([binary, *a, "--db", database, "--tz", "America/New_York"], check=True, capture_output=True)
    run("setup", "--regimen", "once_nightly", "--dose1", "6", "--accept-disclaimer", "--now", DOSE1.isoformat())
    process, info = serve(binary, database, (DOSE1 - datetime.timedelta(minutes=5)).isoformat())
    try:
        driver.delete_all_cookies()
        driver.get(info["pairing_url"])
        button = primary(driver)
        check(button.text == "Take tonight's dose", f"before the dose the big button takes tonight's one dose ({button.text!r})")
        check("6 g, once nightly" in driver.page_source, "the times line names the regimen")
        audit(driver, "tonight-once-before", out)
    finally:
        process.terminate()
        process.wait(10)
    run("dose1", "--now", DOSE1.isoformat())
    process, info = serve(binary, database, (DOSE1 + datetime.timedelta(minutes=170)).isoformat())
    try:
        driver.delete_all_cookies()
        driver.get(info["pairing_url"])
        heading = driver.find_element(By.TAG_NAME, "h1").text
        outcome = driver.find_element(By.CSS_SELECTOR, "[data-outcome]").text
        check(heading == "Tonight's dose taken", f"Tonight's heading says the one dose is taken ({heading!r})")
        check("once nightly, no Dose 2" in outcome and "✓" in outcome, f"the outcome in words ({outcome!r})")
        page = driver.page_source
        check("Take Dose 2" not in page and "Snooze" not in page and not driver.find_elements(By.CSS_SELECTOR, "[data-ring]"),
              "no Dose 2, snooze or countdown ring")
        check(fits(driver), "Tonight fits the screen")
        audit(driver, "tonight-once-after", out)
        driver.get(info["listening"] + "/history")
        badge = driver.find_element(By.CSS_SELECTOR, ".night .badge").text
        check("One dose" in badge, f"History calls the night one dose, not a missed Dose 2 ({badge!r})")
        audit(driver, "history-once", out)
    finally:
        process.terminate()
        process.wait(10)


def titration_plan(driver, binary, work, out):
    """D19: Settings takes a titration plan; a step faster than the label is refused beside the box, with the box to
    confirm it, and once confirmed Tonight names the step's amounts before Dose 1."""
    database = os.path.join(work, "titration.sqlite")
    subprocess.run([binary, "setup", "--accept-disclaimer", "--db", database, "--tz", "America/New_York", "--now", DOSE1.isoformat()],
                   check=True, capture_output=True)
    process, info = serve(binary, database, (DOSE1 - datetime.timedelta(minutes=5)).isoformat())
    try:
        driver.delete_all_cookies()
        driver.get(info["pairing_url"])
        driver.get(info["listening"] + "/settings")
        box = driver.find_element(By.ID, "titration")
        check(not driver.find_elements(By.NAME, "confirm_fast_titration"), "no confirmation is offered before a refusal")
        box.send_keys("2026-11-21 4.5 g + 3.5 g")
        apart(driver)
        box.find_element(By.XPATH, "./ancestor::form//button[@type='submit']").click()
        WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.NAME, "confirm_fast_titration"))
        refusal = driver.find_element(By.CSS_SELECTOR, ".notice.refusal").text
        check("raises the nightly amount by 3.5 g at once" in refusal and "1.5 g a week" in refusal,
              f"the refusal gives the label's reason ({refusal!r})")
        check(driver.find_element(By.ID, "titration").get_attribute("value") == "2026-11-21 4.5 g + 3.5 g", "the plan is kept as typed")
        audit(driver, "settings-titration-refused", out)
        confirm = driver.find_element(By.NAME, "confirm_fast_titration")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", confirm)
        confirm.click()
        apart(driver)
        confirm.find_element(By.XPATH, "./ancestor::form//button[@type='submit']").click()
        WebDriverWait(driver, 10).until(lambda d: "Settings saved." in d.page_source)
        check("titration step of 2026-11-21" in driver.page_source, "Settings names tonight's step")
        driver.get(info["listening"] + "/")
        times = driver.find_element(By.TAG_NAME, "body").text
        check("Take Dose 1 (4.5 g) at bedtime; Dose 2 (3.5 g) follows" in times and "titration step of 2026-11-21" in times,
              f"Tonight names the step's amounts ({times[:200]!r})")
        check(fits(driver), "Tonight fits the screen")
        audit(driver, "tonight-titration-step", out)
    finally:
        process.terminate()
        process.wait(10)


def trusted_night(binary, work, name):
    """A night with Dose 1 at DOSE1, a certificate from `tls init`, and a $HOME whose NSS database trusts its CA (as a
    phone's trust store would after /setup). Returns the database, what `tls init` made, and that home."""
    database = os.path.join(work, name + ".sqlite")
    made = json.loads(subprocess.run([binary, "tls", "init", "localhost", "127.0.0.1", "--db", database, "--json"],
                                     check=True, capture_output=True, text=True).stdout)
    home = os.path.join(work, name + "-home")
    nss = os.path.join(home, ".pki", "nssdb")
    os.makedirs(nss)
    subprocess.run(["certutil", "-d", "sql:" + nss, "-N", "--empty-password"], check=True, capture_output=True)
    subprocess.run(["certutil", "-d", "sql:" + nss, "-A", "-t", "C,,", "-n", "DoseTap local CA", "-i", made["ca_certificate"]], check=True, capture_output=True)
    subprocess.run([binary, "dose1", "--db", database, "--tz", "America/New_York", "--now", DOSE1.isoformat()], check=True, capture_output=True)
    return database, made, home


def https_phone(binary, work, out):
    """The phone after /setup: a browser that trusts DoseTap's local CA (added to its NSS database with certutil, as a
    phone's trust store would hold it) opens Tonight over HTTPS as a secure context, installs the worker, and keeps
    Tonight when DevTools switches the network off."""
    if not shutil.which("certutil"):
        check(False, "certutil (Debian's libnss3-tools) is needed; .ci/run installs it")
        return
    database, made, home = trusted_night(binary, work, "https")
    _, process, info = night_at(binary, work, "https", 160, extra=("--tls-cert", made["server_certificate"], "--tls-key", made["server_key"]), database=database)
    phone = browser(home)
    wait = patient(phone)
    try:
        check(info["pairing_url"].startswith("https://"), f"serve prints an https pairing link ({info['pairing_url'][:30]}…)")
        phone.get(info["pairing_url"])
        check(phone.execute_script("return window.isSecureContext && location.protocol") == "https:", "over HTTPS with the CA trusted, Tonight is a secure context")
        check(phone.find_element(By.TAG_NAME, "h1").text == "Dose 2 window open", "and shows tonight, not a certificate warning")
        manifest = phone.execute_script("return fetch('/manifest.webmanifest').then(r => r.json())")
        check(manifest.get("display") == "standalone" and manifest.get("start_url") == "/" and len(manifest.get("icons", [])) == 5,
              "the manifest loads over HTTPS as valid JSON: standalone, starting at Tonight, with its icons")
        controlled(phone, wait)
        check(True, "the service worker registers over HTTPS")
        # DevTools' offline switch for the page and for its service worker (a worker is a target of its own).
        offline = {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
        phone.execute_cdp_cmd("Network.enable", {})
        phone.execute_cdp_cmd("Network.emulateNetworkConditions", offline)
        for target in phone.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]:
            if target["type"] == "service_worker":
                session = phone.execute_cdp_cmd("Target.attachToTarget", {"targetId": target["targetId"], "flatten": False})["sessionId"]
                for number, (method, params) in enumerate([("Network.enable", {}), ("Network.emulateNetworkConditions", offline)]):
                    message = json.dumps({"id": number + 1, "method": method, "params": params})
                    phone.execute_cdp_cmd("Target.sendMessageToTarget", {"sessionId": session, "message": message})
        phone.get(info["listening"].replace("0.0.0.0", "127.0.0.1") + "/")
        banner = wait.until(EC.visibility_of_element_located((By.ID, "offline-banner")))
        check("Offline" in banner.text, "with the network switched off through DevTools, Tonight loads from the worker and says it is offline")
        first = phone.find_element(By.CSS_SELECTOR, "[data-countdown]").text
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-countdown]").text != first)
        check(True, f"and its countdown runs ({first})")
        phone.save_screenshot(os.path.join(out, "tonight-https-offline.png"))
    finally:
        phone.quit()
        process.terminate()
        process.wait(10)


def own_schema(base_url, work, prefix):
    """`base_url` with a schema of its own for one scenario, named by `prefix`, its work folder, the process and the time."""
    schema = prefix + "_" + os.path.basename(work).lower().replace("-", "_")[-30:] + f"_{os.getpid()}_{int(time.time())}"
    return base_url + ("&" if "?" in base_url else "?") + "search_path=" + schema


def json_commands(binary, environment):
    """A function that runs a `dosetap` command with --json on `environment`'s store and returns what it printed, read."""
    def run(*arguments):
        return json.loads(subprocess.run([binary, *arguments, "--json"], env=environment, capture_output=True, text=True, check=True).stdout)
    return run


def served_as_hosted(binary, environment):
    """The environment and extra `serve` options to serve the store of `environment` (DOSETAP_DATABASE_URL) as a hosted
    store is: as the role .ci/run grants ($DOSETAP_TEST_POSTGRES_ROLE), so every page and tap runs under row-level
    security; with no role, as the schema's owner, which `serve` refuses unless told (--allow-owner-role)."""
    role = os.environ.get("DOSETAP_TEST_POSTGRES_ROLE")
    if not role:
        return environment, ["--allow-owner-role"]
    subprocess.run([binary, "store", "grant", role, "--json"], env=environment, capture_output=True, text=True, check=True)
    parts = urllib.parse.urlsplit(environment["DOSETAP_DATABASE_URL"])
    netloc = role + "@" + parts.hostname + (f":{parts.port}" if parts.port else "")
    return {**environment, "DOSETAP_DATABASE_URL": urllib.parse.urlunsplit(parts._replace(netloc=netloc))}, []


def free_port():
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class DevTools:
    """Chromium's DevTools protocol over its own websocket (selenium's execute_cdp_cmd cannot read events, nor reach
    the service worker's target)."""

    def __init__(self, driver):
        import urllib.request, websocket
        address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        self.browser = websocket.create_connection(json.load(urllib.request.urlopen(f"http://{address}/json/version"))["webSocketDebuggerUrl"], suppress_origin=True)
        self.next = 0

    def send(self, method, params=None, session=None, wait_for=None):
        """Sends a command; returns its result, or with `wait_for` the first event of that name (its params)."""
        self.next += 1
        message = {"id": self.next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.browser.send(json.dumps(message))
        result = None
        for _ in range(500):
            answer = json.loads(self.browser.recv())
            if wait_for and answer.get("method") == wait_for:
                return answer["params"]
            if answer.get("id") == self.next:
                result = answer.get("result", answer.get("error"))
                if not wait_for:
                    return result
        return result

    def worker_session(self):
        """The running worker of the page's origin (an older, stopped version may still be listed)."""
        for target in self.send("Target.getTargets")["targetInfos"]:
            if target["type"] == "service_worker":
                session = self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})["sessionId"]
                if self.in_worker(session, "self.registration.active === self.serviceWorker"):
                    return session
        return None

    def in_worker(self, session, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}, session=session)
        return (result or {}).get("result", {}).get("value")


def push_alarm(binary, work, out):
    """Alarms that reach a closed app, in a real browser over HTTPS. The installed app asks to subscribe (headless
    Chromium has no push service to reach, so it must say so in words, not hang); the push service stand-in
    (scripts/push-service.py) subscribes through the API instead, receives the server's real wake-alarm push and
    decrypts it with http_ece; that very payload is delivered to the app's service worker through DevTools
    (ServiceWorker.deliverPushMessage), which shows a notification that stays, vibrates and carries its actions; the
    worker's own click handler, run with the Snooze action, snoozes the night once, and the alarm log says so."""
    database, made, home = trusted_night(binary, work, "push")
    subprocess.run([binary, "settings", "set", "wake_alarm_refire_minutes", "3", "--db", database], check=True, capture_output=True)
    token = json.loads(subprocess.run([binary, "device", "add", "push stand-in", "--db", database, "--json"], check=True, capture_output=True, text=True).stdout)["token"]
    log = os.path.join(work, "push-service.log")
    service = subprocess.Popen([sys.executable, os.path.join(SCRIPTS, "push-service.py"), log, "phone="],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    subscription = json.loads(service.stdout.readline())["subscriptions"]["phone"]
    port = free_port()
    tls = ("--tls-cert", made["server_certificate"], "--tls-key", made["server_key"], "--port", str(port))
    # 4 minutes before the wake alarm: nothing is due yet.
    process, info = serve(binary, database, (DOSE1 + datetime.timedelta(minutes=161)).isoformat(), extra=tls)
    phone = browser(home)
    wait = patient(phone, 40)
    try:
        import ssl, urllib.request
        base = f"https://127.0.0.1:{port}"
        secure = ssl.create_default_context(cafile=made["ca_certificate"])
        phone.get(info["pairing_url"])
        controlled(phone, wait)
        phone.execute_cdp_cmd("Browser.grantPermissions", {"origin": base, "permissions": ["notifications"]})
        phone.get(base + "/settings#alarms")
        subscribe = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "[data-push-subscribe=alarm]")))
        check(subscribe.text == "Get alarms on this phone", "Settings offers push alarms on this phone, over HTTPS")
        subscribe.click()
        status = phone.find_element(By.CSS_SELECTOR, "[data-push-status]")
        wait.until(lambda d: status.text and status.text != "Asking this browser's push service…")
        check("push service did not answer" in status.text or "will get tonight's alarms" in status.text,
              f"subscribing ends in words, never a silent wait: {status.text!r}")
        # The stand-in subscribes as any client with a device token may.
        request = urllib.request.Request(base + "/v1/push/subscriptions", data=json.dumps(subscription).encode(), method="POST",
                                         headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        check(urllib.request.urlopen(request, context=secure).status == 201, "a push subscription is saved over the API")
        phone.get(base + "/settings")
        listed = [item.text for item in phone.find_elements(By.CSS_SELECTOR, "ul.devices li")]
        check(any(text.startswith("push stand-in: alarms, by 127.0.0.1, since ") and text.endswith("Remove") for text in listed),
              f"Settings lists the subscription, its device and a way to remove it: {listed}")
        phone.find_element(By.CSS_SELECTOR, "form[action='/ui/alarm/test'] button").click()
        # The page rings itself at once, then lists what every other channel did, without leaving Settings.
        wait.until(lambda d: "Sending" not in d.find_element(By.CSS_SELECTOR, "[data-test-report]").text)
        report = phone.find_element(By.CSS_SELECTOR, "[data-test-report]").text
        check("This page: rang" in report and "push → push stand-in: accepted" in report, f"the test alarm reports each channel: {report!r}")
        check(phone.execute_script("const r = document.querySelector('[data-test-report]').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight"),
              "the report is scrolled into view")
        audit(phone, "settings-alarms", out)

        # The wake alarm: the server (restarted 30 s after it is due) pushes it to the stand-in, which decrypts it.
        process.terminate(); process.wait(10)
        process, info = serve(binary, database, (DOSE1 + datetime.timedelta(minutes=165, seconds=30)).isoformat(), extra=tls)
        deadline = datetime.datetime.now() + datetime.timedelta(seconds=20)
        pushed = []
        while datetime.datetime.now() < deadline and not pushed:
            entries = [json.loads(line) for line in open(log)] if os.path.exists(log) else []
            pushed = [e for e in entries if (e.get("payload") or {}).get("kind") == "wake_alarm"]
        check(bool(pushed) and "error" not in pushed[0], "the server pushed the wake alarm, and the stand-in verified and decrypted it")
        payload = pushed[0]["payload"]
        check([a["action"] for a in payload["actions"]] == ["take", "snooze", "skip"], "with three one-time actions: Take Dose 2, Snooze, Skip")

        # That payload, delivered to the app's service worker as a push.
        phone.get(base + "/")
        controlled(phone, wait)
        tools = DevTools(phone)
        target = [t for t in tools.send("Target.getTargets")["targetInfos"] if t["type"] == "page"][0]
        page = tools.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})["sessionId"]
        registration = tools.send("ServiceWorker.enable", session=page, wait_for="ServiceWorker.workerRegistrationUpdated")
        registration_id = [r for r in registration["registrations"] if not r.get("isDeleted")][0]["registrationId"]
        tools.send("ServiceWorker.deliverPushMessage", {"origin": base + "/", "registrationId": registration_id, "data": json.dumps(payload)}, session=page)
        worker, shown = None, []
        for _ in range(100):  # up to 20 s: the worker may be starting to take the push
            worker = worker or tools.worker_session()
            shown = tools.in_worker(worker, "self.registration.getNotifications().then(ns => ns.map(n => ({title: n.title, body: n.body, "
                                    "actions: n.actions.map(a => a.action), links: Object.keys(n.data.links), stays: n.requireInteraction, vibrate: n.vibrate})))") if worker else None
            if shown:
                break
            time.sleep(0.2)
        note = shown[0] if shown else {}
        limit = phone.execute_script("return Notification.maxActions")
        check(note.get("title") == "DoseTap — Dose 2" and note.get("body") == "Time for Dose 2." and note.get("stays") and len(note.get("vibrate", [])) > 1,
              f"the worker shows the alarm: it stays until answered and vibrates ({note.get('title')!r})")
        check(note.get("links") == ["take", "snooze", "skip"] and note.get("actions") == ["take", "snooze", "skip"][:limit],
              f"with its three actions, of which this browser shows its maximum of {limit}, in order: {note.get('actions')}")

        def click(action):
            # The worker's own notificationclick handler, with a real NotificationEvent for the shown notification
            # (waiting for the worker to show it, after a second delivery).
            return tools.in_worker(worker, "(async () => { let ns = []; for (let i = 0; i < 50 && !ns.length; i++) { ns = await self.registration.getNotifications({tag: %s}); "
                                   "if (!ns.length) await new Promise(r => setTimeout(r, 200)); } "
                                   "self.dispatchEvent(new NotificationEvent('notificationclick', {notification: ns[0], action: %s})); "
                                   "await new Promise(r => setTimeout(r, 2500)); })()" % (json.dumps(payload["tag"]), json.dumps(action)))

        def snoozes():
            return sqlite3.connect(database).execute("SELECT COUNT(*) FROM dose_events WHERE event_type = 'snooze'").fetchone()[0]

        click("snooze")
        check(snoozes() == 1, "its Snooze action snoozed the night")
        answered = sqlite3.connect(database).execute("SELECT surface FROM alarm_acknowledgements").fetchall()
        check(answered == [("push",)], f"and the alarm is recorded as answered by the push action {answered}")
        tools.send("ServiceWorker.deliverPushMessage", {"origin": base + "/", "registrationId": registration_id, "data": json.dumps(payload)}, session=page)
        click("snooze")
        check(snoozes() == 1, "the same notification's Snooze again snoozes nothing more (its link works once)")
        phone.get(base + "/details")
        lines = [li.text for li in phone.find_elements(By.CSS_SELECTOR, ".alarm-log li")]
        check(any(line.startswith("01:15 wake alarm → ") and "push (1 device); acknowledged 01:15 by push action" in line for line in lines),
              f"Details shows the night's alarm log: {lines}")
        audit(phone, "details-alarm-log", out)
    finally:
        phone.quit()
        process.terminate()
        process.wait(10)
        service.terminate()


def window_cue(driver, binary, work):
    """Screen readers hear the close coming: 15 minutes before it, the page says so once."""
    _, process, info = night_at(binary, work, "cue", 225 - 3 / 60)
    try:
        driver.delete_all_cookies()
        driver.get(info["pairing_url"])
        WebDriverWait(driver, 15).until(lambda d: "15 minutes left" in d.find_element(By.ID, "announcer").get_attribute("textContent"))
        check(True, "15 minutes before the close, the page announces it")
    finally:
        process.terminate()
        process.wait(10)


def insights_and_report(driver, binary, work, out):
    """Insights and the Report at 390×844 and at A4: figures, charts, the planner, no overflow; the report printed to
    PDF through the DevTools protocol and read back with pdftotext."""
    database = os.path.join(work, "insights.sqlite")
    now = subprocess.run([sys.executable, os.path.join(SCRIPTS, "seed-insights.py"), binary, database],
                         check=True, capture_output=True, text=True).stdout.strip()
    expected = json.loads(subprocess.run([binary, "insights", "--json", "--db", database, "--tz", "America/New_York", "--now", now],
                                         check=True, capture_output=True, text=True).stdout)
    on_time = "%.1f%%" % expected["timing"]["on_target"]["percent"]
    process, info = serve(binary, database, now=now)
    base = info["pairing_url"].split("/pair")[0]
    try:
        driver.get(info["pairing_url"])
        driver.get(base + "/insights")
        text = driver.find_element(By.TAG_NAME, "main").text
        check(f"On target\n{on_time}" in text or f"On target {on_time}" in text, f"Insights shows the CLI's on-target figure {on_time}")
        check("Late" in text and "after the window closed" in text and "In window" in text,
              "Insights words a dose by D18: on target, in window, early and late outside the window")
        check("Estimated" in text or "estimate" in text, "Insights says the WASO figure is an estimate")
        for chart in ["interval-chart", "calendar-chart", "wellness-chart"]:
            svg = driver.find_elements(By.CSS_SELECTOR, f"svg[aria-labelledby^='{chart}']")
            check(len(svg) == 1 and svg[0].size["width"] <= 390, f"{chart} is drawn within the screen")
            check(driver.find_elements(By.CSS_SELECTOR, f"#{chart}-title") and driver.find_elements(By.CSS_SELECTOR, f"#{chart}-desc"),
                  f"{chart} has a title and a description")
        check(len(driver.find_elements(By.CSS_SELECTOR, ".chart-data table")) == 3, "each chart has its data table")
        check("association" in text and "not a cause" in text, "patterns say association, not cause")
        audit(driver, "page-insights", out)
        driver.execute_script("window.scrollTo(0, document.querySelector('#calendar-chart-caption').getBoundingClientRect().top + window.scrollY - 8)")
        driver.save_screenshot(os.path.join(out, "page-insights-calendar.png"))
        driver.execute_script("window.scrollTo(0, document.querySelector('.planner').getBoundingClientRect().top + window.scrollY - 8)")
        driver.save_screenshot(os.path.join(out, "page-insights-planner.png"))
        # Seven nights and a custom range.
        driver.find_element(By.CSS_SELECTOR, ".periods a[href$='nights=7']").click()
        check("Last 7 nights" in driver.find_element(By.TAG_NAME, "main").text, "the 7-night period is chosen")
        driver.get(base + "/insights?from=2026-10-01&to=2026-10-02")
        check(driver.find_elements(By.CSS_SELECTOR, "[data-state='insufficient_data']"), "two nights show insufficient_data with the nights needed")
        driver.save_screenshot(os.path.join(out, "page-insights-insufficient.png"))
        # The Report page, then the report itself at 390 px and at A4.
        driver.get(base + "/report")
        audit(driver, "page-report", out)
        link = driver.find_element(By.CSS_SELECTOR, "a.primary").get_attribute("href")
        driver.get(link)
        body = driver.find_element(By.TAG_NAME, "body").text
        check(on_time in body and "not medical advice" in body, f"the report holds the on-target figure {on_time} and the disclaimer")
        check("XYWAV" in body and "2.25 g + 2.25 g (4.5 g a night" in body and 'data-label="Taken">2.25 g + 2.25 g' in driver.page_source,
              "the report names the product and the amounts taken (D18)")
        check(not driver.find_elements(By.TAG_NAME, "script"), "the report has no script")
        external = driver.execute_script("return [...document.querySelectorAll('[src],[href]')].map(e => e.getAttribute('src') || e.getAttribute('href'))")
        check(not external, f"the report fetches nothing ({external[:3]})")
        audit(driver, "report-390", out)
        driver.set_window_size(794, 1123)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 794, "height": 1123, "deviceScaleFactor": 1, "mobile": False})
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        check(narrow(driver), "the report fits A4 width (794 px) in print media")
        driver.save_screenshot(os.path.join(out, "report-a4-print.png"))
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        pdf = driver.execute_cdp_cmd("Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69, "preferCSSPageSize": True, "printBackground": True})
        path = os.path.join(out, "report.pdf")
        import base64
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(pdf["data"]))
        printed = subprocess.run(["pdftotext", "-layout", path, "-"], check=True, capture_output=True, text=True).stdout
        median = "%g min" % expected["interval"]["median"]
        check(on_time in printed and median in printed, f"pdftotext finds {on_time} on time and the median {median} in the PDF")
        pages = subprocess.run(["pdfinfo", path], check=True, capture_output=True, text=True).stdout
        check("(A4)" in pages, "the PDF is A4")
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.set_window_size(WIDTH, HEIGHT)
        # The Details page draws the open night on a timeline.
        subprocess.run([binary, "dose1", "--db", database, "--tz", "America/New_York", "--now", now], check=True, capture_output=True)
        subprocess.run([binary, "log", "bathroom", "--db", database, "--tz", "America/New_York", "--now", now], check=True, capture_output=True)
        driver.get(base + "/details")
        timeline = driver.find_elements(By.CSS_SELECTOR, "svg.timeline")
        check(timeline and timeline[0].size["width"] <= 390, "Details draws tonight on a timeline within the screen")
        driver.execute_script("window.scrollTo(0, document.querySelector('svg.timeline').getBoundingClientRect().top + window.scrollY - 40)")
        driver.save_screenshot(os.path.join(out, "page-details-timeline.png"))
    finally:
        stop_server(process)


def sleep_details(driver, binary, work, out):
    """A night's Apple Health sleep on Details at 390×844: imported through the CLI, drawn as a hypnogram with the doses
    and the heart rate, nothing wider than the screen."""
    database = os.path.join(work, "sleep.sqlite")
    def run(*arguments):
        subprocess.run([binary, *arguments, "--db", database, "--tz", "America/New_York"], check=True, capture_output=True)
    run("setup", "--accept-disclaimer", "--now", "2026-11-01T12:00:00Z")
    run("dose1", "--now", "2026-11-02T03:00:00Z")
    run("log", "bathroom", "--now", "2026-11-02T05:20:00Z")
    run("dose2", "--now", "2026-11-02T05:50:00Z")
    stages = [("AsleepCore", "22:10", "23:40"), ("AsleepDeep", "23:40", "00:30"), ("Awake", "00:30", "00:55"), ("AsleepREM", "00:55", "02:40"),
              ("AsleepCore", "02:40", "04:10"), ("AsleepDeep", "04:10", "04:40"), ("AsleepREM", "04:40", "06:30"), ("Awake", "06:30", "06:45")]
    def stamp(clock):
        day = "2026-11-01" if clock >= "12:00" else "2026-11-02"
        return f"{day} {clock}:00 -0500"
    records = [f'<Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Apple Watch" startDate="{stamp(a)}" endDate="{stamp(b)}" '
               f'value="HKCategoryValueSleepAnalysis{v}"/>' for v, a, b in stages]
    records += [f'<Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch" startDate="{stamp(t)}" endDate="{stamp(t)}" value="{bpm}"/>'
                for t, bpm in [("22:30", 62), ("23:30", 55), ("00:15", 51), ("00:45", 66), ("01:30", 57), ("03:00", 54), ("04:20", 50), ("06:00", 58)]]
    def import_file(name, text):
        path = os.path.join(work, name)
        with open(path, "w") as handle:
            handle.write(text)
        run("import", path, "--now", "2026-11-03T14:00:00Z")
    import_file("export.xml", '<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n' + "\n".join(records) + "\n</HealthData>\n")
    # The next night told by WHOOP's export: totals only (no timeline), and the recovery scored the morning after.
    run("dose1", "--now", "2026-11-03T04:00:00Z")
    run("dose2", "--now", "2026-11-03T06:50:00Z")
    sleeps = ("Cycle start time,Cycle end time,Cycle timezone,Sleep onset,Wake onset,Sleep performance %,Respiratory rate (rpm),"
              "Asleep duration (min),In bed duration (min),Light sleep duration (min),Deep (SWS) duration (min),REM duration (min),"
              "Awake duration (min),Sleep need (min),Sleep debt (min),Sleep efficiency %,Sleep consistency %,Nap\n"
              "2026-11-02 23:10:00,2026-11-03 23:05:00,UTC-05:00,2026-11-02 23:10:00,2026-11-03 06:55:00,88,14.6,420,465,210,95,115,45,"
              "480,20,90,70,false\n")
    import_file("sleeps.csv", sleeps)
    cycles = ("Cycle start time,Cycle end time,Cycle timezone,Recovery score %,Resting heart rate (bpm),Heart rate variability (ms),"
              "Skin temp (celsius),Blood oxygen %,Day Strain,Energy burned (cal),Max HR (bpm),Average HR (bpm),Sleep onset,Wake onset,"
              "Sleep performance %,Respiratory rate (rpm),Asleep duration (min),In bed duration (min),Light sleep duration (min),"
              "Deep (SWS) duration (min),REM duration (min),Awake duration (min),Sleep need (min),Sleep debt (min),Sleep efficiency %,"
              "Sleep consistency %\n2026-11-02 23:10:00,2026-11-03 23:05:00,UTC-05:00,62,54,48.5,33.4,95.2,9.8,2100,150,70,2026-11-02 23:10:00,"
              "2026-11-03 06:55:00,88,14.6,420,465,210,95,115,45,480,20,90,70\n")
    import_file("physiological_cycles.csv", cycles)
    process, info = serve(binary, database, now="2026-11-03T14:00:00Z")
    try:
        driver.get(info["pairing_url"])
        driver.get(info["listening"] + "/details?date=2026-11-01")
        chart = driver.find_elements(By.CSS_SELECTOR, "svg.hypnogram")
        check(chart and chart[0].is_displayed(), "Details draws the night's hypnogram")
        check(len(driver.find_elements(By.CSS_SELECTOR, "svg.hypnogram rect.stage")) == len(stages), "one bar per merged stage")
        check(driver.find_elements(By.CSS_SELECTOR, "svg.hypnogram polyline.heart"), "the heart-rate line is drawn")
        check("At Dose 2: asleep (rem)" in driver.page_source or "At Dose 2:" in driver.page_source, "the night's sleep is said in words")
        driver.execute_script("arguments[0].scrollIntoView()", chart[0])
        audit(driver, "details-hypnogram", out)
        driver.get(info["listening"] + "/details?date=2026-11-02")
        band = driver.find_elements(By.CSS_SELECTOR, "svg.hypnogram rect.stage-totals")
        check(band and band[0].is_displayed(), "a WHOOP night is one band from onset to wake, no stage placed")
        check("WHOOP gives stage totals, not when each stage came" in driver.page_source, "Details says WHOOP's export has no timeline")
        driver.execute_script("arguments[0].scrollIntoView()", band[0])
        audit(driver, "details-whoop-totals", out)
        driver.get(info["listening"] + "/history")
        columns = driver.find_elements(By.CSS_SELECTOR, "ul.sleep-columns")
        check(len(columns) == 2 and all(c.is_displayed() for c in columns), "History shows both nights' sleep as columns")
        check("Recovery" in columns[0].text and "62%" in columns[0].text, "the WHOOP night's column shows its recovery")
        driver.execute_script("arguments[0].scrollIntoView()", columns[0])
        audit(driver, "history-sleep-columns", out)
    finally:
        stop_server(process)


def deleting_nights(driver, binary, work, out):
    """History at 390×844: two nights chosen with their checkboxes, then Clear Old; each asks first on a page that names
    the count and the dates, and the nights are gone afterwards."""
    database = os.path.join(work, "history.sqlite")
    now = subprocess.run([sys.executable, os.path.join(SCRIPTS, "seed-insights.py"), binary, database],
                         check=True, capture_output=True, text=True).stdout.strip()
    def nights():
        with sqlite3.connect(database) as db:
            return [row[0] for row in db.execute("SELECT session_date FROM sleep_sessions ORDER BY session_date")]
    before = nights()
    wait = patient(driver, 10)
    process, info = serve(binary, database, now=now)
    base = info["pairing_url"].split("/pair")[0]
    try:
        driver.get(info["pairing_url"])
        driver.get(base + "/history")
        boxes = driver.find_elements(By.CSS_SELECTOR, "form#pick-nights input[name=date]")
        check(len(boxes) >= 2, f"History offers a checkbox per ended night ({len(boxes)} on the page)")
        chosen = [box.get_attribute("value") for box in boxes[:2]]
        for box in boxes[:2]:
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
            box.find_element(By.XPATH, "..").click()
        audit(driver, "history-chosen", out)
        driver.find_element(By.CSS_SELECTOR, "form#pick-nights button[type=submit]").click()
        heading = wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text.startswith("Delete") and d.find_element(By.TAG_NAME, "h1").text)
        check(heading.startswith("Delete 2 nights (") and min(chosen) in heading and max(chosen) in heading,
              f"the confirmation names the count and the dates ({heading!r})")
        check("primary" in driver.find_element(By.LINK_TEXT, "Keep them").get_attribute("class"), "keeping them is the filled button")
        check(nights() == before, "asking deletes nothing")
        audit(driver, "history-delete-confirm", out)
        apart(driver)
        driver.find_element(By.CSS_SELECTOR, "form[action='/ui/history/delete'] button[type=submit]").click()
        flash = wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "History" and d.find_element(By.TAG_NAME, "main").text)
        check("Deleted 2 nights" in flash, "History says what was deleted")
        check(sorted(set(before) - set(nights())) == sorted(chosen), f"exactly the chosen nights are gone ({chosen})")
        # Clear Old: everything more than 7 days before tonight.
        Select(driver.find_element(By.ID, "older_than")).select_by_value("7")
        driver.find_element(By.CSS_SELECTOR, "form.row[action='/history/delete'] button").click()
        heading = wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text.startswith("Delete") and d.find_element(By.TAG_NAME, "h1").text)
        check(heading.startswith("Delete ") and "night" in heading, f"Clear Old names what it will delete ({heading!r})")
        audit(driver, "history-clear-old-confirm", out)
        remaining = nights()
        apart(driver)
        driver.find_element(By.CSS_SELECTOR, "form[action='/ui/history/delete'] button[type=submit]").click()
        flash = wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "History" and d.find_element(By.TAG_NAME, "main").text)
        check("Deleted " in flash, "Clear Old reports what it deleted")
        check(len(nights()) < len(remaining), f"older nights are gone ({len(remaining)} → {len(nights())})")
        driver.save_screenshot(os.path.join(out, "history-after-clear-old.png"))
        driver.execute_script("document.querySelector('#older_than').scrollIntoView({block: 'center'})")
        driver.save_screenshot(os.path.join(out, "history-clear-old-form.png"))
        # The support bundle's review page, reached from Settings.
        driver.get(base + "/settings")
        driver.find_element(By.CSS_SELECTOR, "a[href='/settings/support']").click()
        text = wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "Support bundle" and d.find_element(By.TAG_NAME, "main").text)
        check("events.csv" in text and "2000-01-01T" in text and "2026-" not in text,
              "the support review shows the redacted events, moved to 2000-01-01, and no real date anywhere (the log's too)")
        audit(driver, "page-support", out)
        driver.execute_script("document.querySelector('form[action=\\'/ui/support-bundle\\']').scrollIntoView({block: 'center'})")
        driver.save_screenshot(os.path.join(out, "page-support-download.png"))
    finally:
        stop_server(process)


def on_postgres(base):
    """Every dosetap started from here with --db PATH runs on a PostgreSQL schema of that path's own, through
    DOSETAP_DATABASE_URL (which wins over --db): the same walk, on the other store."""
    real_run, real_popen = subprocess.run, subprocess.Popen

    def with_store(arguments, kwargs):
        if isinstance(arguments, list) and "--db" in arguments:
            path = arguments[arguments.index("--db") + 1]
            schema = "b" + re.sub(r"[^a-z0-9]", "_", path.lower())[-55:]
            kwargs["env"] = {**(kwargs.get("env") or os.environ), "DOSETAP_DATABASE_URL": base + ("&" if "?" in base else "?") + "search_path=" + schema}
        return kwargs

    def serving(arguments, kwargs):
        """`serve` as a hosted store is served: as the granted role, else as the owner, told so (served_as_hosted)."""
        kwargs = with_store(arguments, kwargs)
        if isinstance(arguments, list) and len(arguments) > 1 and arguments[1] == "serve" and "env" in kwargs:
            real = subprocess.run
            subprocess.run = real_run
            try:
                kwargs["env"], extra = served_as_hosted(arguments[0], kwargs["env"])
            finally:
                subprocess.run = real
            arguments = arguments + extra
        return arguments, kwargs

    def popen(arguments, *rest, **kwargs):
        arguments, kwargs = serving(arguments, kwargs)
        return real_popen(arguments, *rest, **kwargs)

    subprocess.run = lambda arguments, *rest, **kwargs: real_run(arguments, *rest, **with_store(arguments, kwargs))
    subprocess.Popen = popen


def live_night(driver, wait, binary, work, out):
    """A live night on the real clock, from pairing and setup through Dose 1, undo, an early Dose 2 and a refusal."""
    # 1. A live night on the real clock.
    # A local CA beside the database, so /setup shows its fingerprint and the steps to trust it.
    subprocess.run([binary, "tls", "init", "localhost", "--db", os.path.join(work, "live.sqlite")], check=True, capture_output=True)
    process, info = serve(binary, os.path.join(work, "live.sqlite"), zone=evening_zone(datetime.datetime.now(datetime.timezone.utc)))
    try:
        driver.get(info["pairing_url"])
        first_run_setup(driver, wait, info, out)
        check("Take Dose 1" in primary(driver).text, "paired browser sees Take Dose 1")
        check(fits(driver), "Tonight (no Dose 1) fits 390x844 without scrolling")
        driver.save_screenshot(os.path.join(out, "tonight-no_dose1.png"))
        primary(driver).click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-undo-until]")))
        check("Dose 1 recorded" in driver.find_element(By.CSS_SELECTOR, ".snackbar").text, "undo snackbar after Dose 1")
        first = driver.find_element(By.CSS_SELECTOR, "[data-countdown]").text
        # The countdown ticks every second: wait (up to 10 s) for the text to change rather than sleeping.
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-countdown]").text != first)
        second = driver.find_element(By.CSS_SELECTOR, "[data-countdown]").text
        check(first != second, f"the countdown is live ({first} → {second})")
        check(driver.find_element(By.ID, "announcer").get_attribute("aria-live") == "assertive", "changes are announced to screen readers")
        # Undo answers its first tap at any moment of its window: no settle time stands in front of it.
        tapped = driver.execute_script("return Date.now()")
        driver.find_element(By.CSS_SELECTOR, ".snackbar button").click()
        wait.until(lambda d: "Take Dose 1" in primary(d).text)
        check(driver.execute_script("return Date.now()") - tapped < 2000, "Undo tapped at once after Dose 1 works the first time, without dead time")
        settled(driver)
        primary(driver).click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-ring]")))
        check(fits(driver), "Tonight (before the window) fits without scrolling")
        audit(driver, "tonight-before_window", out)
        check(not driver.find_elements(By.CSS_SELECTOR, "[data-variant]:not([hidden]) [data-spot] .primary"),
              "before the window there is no filled Dose 2 button: the countdown and the opening time are the focus")
        spot = driver.find_element(By.CSS_SELECTOR, "[data-variant]:not([hidden]) .spot-text").text
        check(spot.startswith("Dose 2 opens at"), f"the big button's spot says when the window opens ({spot!r})")
        settled(driver)
        driver.find_element(By.XPATH, "//button[text()='Take Dose 2 early…']").click()
        dialog = wait.until(EC.visibility_of_element_located((By.ID, "risk-dialog")))
        check("before then is unsafe" in dialog.text, "an early Dose 2 is only an outlined choice, and its dialog names the risk: "
              + dialog.find_element(By.CSS_SELECTOR, "[data-risk-text]").text)
        check("primary" in dialog.find_element(By.CSS_SELECTOR, "[data-risk-no]").get_attribute("class")
              and "primary" not in dialog.find_element(By.CSS_SELECTOR, "[data-risk-yes]").get_attribute("class"),
              "in the dialog Cancel is the filled button and Take it anyway the outlined one")
        check(not dialog.find_element(By.CSS_SELECTOR, "[data-risk-skip]").is_displayed(), "before the window the dialog offers no Skip button")
        apart(driver)
        dialog.find_element(By.CSS_SELECTOR, "[data-risk-yes]").click()
        wait.until(lambda d: "Dose 2 was taken early tonight" in d.page_source)
        check(True, "early Dose 2 recorded after confirming, with its warning")
        outcome = driver.find_element(By.CSS_SELECTOR, "[data-outcome]")
        check("early (before the window)" in outcome.text and "✓" not in outcome.text and "warning" in outcome.get_attribute("class"),
              f"an early Dose 2 is worded early, as a warning, never with a tick ({outcome.text!r})")
        settled(driver)
        driver.find_element(By.CSS_SELECTOR, "button[aria-label='Log Bathroom']").click()
        try:
            wait.until(lambda d: "Bathroom recorded" in d.page_source)
        except Exception:
            print(driver.current_url, driver.find_element(By.TAG_NAME, "main").text[:600]); driver.save_screenshot(os.path.join(out, "debug-bathroom.png")); raise
        check(True, "bathroom trip logged from the grid")
        settled(driver)
        driver.find_element(By.CSS_SELECTOR, "button[aria-label='Log Bathroom']").click()
        banner = wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "[data-banner]")))
        check("Bathroom was just logged. Wait" in banner.text and driver.find_elements(By.CSS_SELECTOR, "[data-ring], [data-outcome]"),
              f"a second bathroom tap is refused inline on Tonight ({banner.text!r})")
        wait.until(lambda d: "Bathroom was just logged" in d.find_element(By.ID, "announcer").get_attribute("textContent"))
        check(True, "and the refusal is announced")
        audit(driver, "tonight-refused", out)
        driver.get(info["listening"] + "/")
        check(fits(driver), "Tonight (night complete) fits without scrolling")
        audit(driver, "tonight-completed", out)
        driver.get(info["listening"] + "/settings")
        driver.find_element(By.LINK_TEXT, "Run setup again").click()
        wait.until(lambda d: "Step 1 of 5" in d.page_source)
        check(driver.current_url.endswith("/welcome"), "Settings → Run setup again opens setup at step 1")
        supply_page(driver, wait, info, out)
        for page in ["details", "history", "insights", "settings", "checkin", "presleep", "medications", "setup"]:
            driver.get(info["listening"] + "/" + page)
            audit(driver, f"page-{page}", out)

        # Medications: a dose is chosen, never assumed; XYWAV and Xyrem are not "other medications".
        driver.get(info["listening"] + "/medications")
        options = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#medication option")]
        check("xywav" not in options and "xyrem" not in options and "modafinil" in options, "oxybate is kept out of the medication list")
        Select(driver.find_element(By.ID, "medication")).select_by_value("modafinil")
        driver.find_element(By.CSS_SELECTOR, "form[action='/medications'] button[type=submit]").click()
        wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "form[action='/ui/medications']")))
        check(not driver.find_elements(By.CSS_SELECTOR, "input[name=amount]:checked"), "no dose is chosen for the person")
        audit(driver, "medications-modafinil", out)
        driver.find_element(By.XPATH, "//label[@class='chip'][span='100 mg']").click()
        driver.find_element(By.CSS_SELECTOR, "form[action='/ui/medications'] button[type=submit]").click()
        wait.until(lambda d: "Modafinil 100 mg logged" in d.page_source)
        check(True, "Modafinil 100 mg logged as chosen, with a confirmation")
    finally:
        process.terminate()
        process.wait(10)


def clock_phases(driver, wait, binary, work, out):
    """Tonight at each phase of one night, one server per moved instant: before the window, in it, near its close, after it."""
    # 2. The phases that need the clock moved: one server per instant, on the same night.
    database = None
    labels = {"active": "Dose 2 window open", "near_close": "Dose 2 window closing soon", "closed": "Dose 2 window closed"}
    for phase, minutes in [("active", 160), ("near_close", 230), ("closed", 245)]:
        database, process, info = night_at(binary, work, "phases", minutes, database=database)
        try:
            driver.delete_all_cookies()
            driver.get(info["pairing_url"])
            heading = driver.find_element(By.TAG_NAME, "h1").text
            check(heading == labels[phase], f"Tonight shows the {phase} phase ({heading!r})")
            check(fits(driver), f"Tonight ({phase}) fits without scrolling")
            if phase == "active":
                state = driver.execute_script("return document.body.dataset.wakeLock || ''")
                line = driver.find_element(By.CSS_SELECTOR, "[data-wakelock]").text
                check((state == "held" and "stays on" in line) or (state in ("refused", "unsupported") and "ntfy" in line),
                      f"the screen is kept on, or the page says why not and names what reaches a sleeping phone ({state}: {line!r})")
                driver.find_element(By.CSS_SELECTOR, "[data-nightstand]").click()
                shown = lambda css: any(e.is_displayed() for e in driver.find_elements(By.CSS_SELECTOR, css))
                check(not shown(".tabs") and not shown(".grid") and primary(driver).is_displayed() and shown("[data-ring]"),
                      "nightstand: the countdown and the one action, nothing else")
                driver.save_screenshot(os.path.join(out, "tonight-nightstand.png"))
                toggle = driver.find_element(By.CSS_SELECTOR, "[data-nightstand]")
                check(toggle.is_displayed() and toggle.text == "Full view", "and the way back to the full view stays on screen")
                toggle.click()
            if phase == "near_close":
                driver.find_element(By.CSS_SELECTOR, "[data-nightstand]").click()
                check("urgent" in driver.find_element(By.TAG_NAME, "body").get_attribute("class"), "under 30 minutes the nightstand view brightens")
                audit(driver, "tonight-nightstand-urgent", out)
                driver.find_element(By.CSS_SELECTOR, "[data-nightstand]").click()
            if phase == "near_close":
                ring = driver.find_element(By.CSS_SELECTOR, "[data-ring]")
                check("near" in ring.get_attribute("class") and "Under 15 minutes left" in driver.find_element(By.CSS_SELECTOR, "[data-urgency]").text,
                      "near the close the ring changes and says so in words")
            if phase == "closed":
                check(primary(driver).text == "Skip Dose 2", f"after the window, Skip is the filled button ({primary(driver).text!r})")
            audit(driver, f"tonight-{phase}", out)
        finally:
            process.terminate()
            process.wait(10)


def double_tap_night(driver, wait, binary, work, out):
    """Half-asleep at 01:20: a double tap on Take Dose 2, an early wake-up, a check-in, a refused new Dose 1 (D14, D15, D17), a second browser paired from the QR code."""
    # 2b. Half-asleep at 01:20: a double tap on Take Dose 2, an early wake-up, a check-in, then a new Dose 1 (D14, D15).
    database, process, info = night_at(binary, work, "double", 170)
    try:
        driver.delete_all_cookies()
        driver.get(info["pairing_url"])
        ActionChains(driver).double_click(primary(driver)).perform()
        try:
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-outcome]"))
        except Exception:
            driver.save_screenshot(os.path.join(out, "debug-double.png")); print(driver.page_source[:3000]); raise
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-outcome]"))
        outcome = driver.find_element(By.CSS_SELECTOR, "[data-outcome]").text
        check("Dose 2 taken at 01:20 — 170 min after Dose 1" in outcome, f"after Dose 2 Tonight says it in words ({outcome!r})")
        check(not driver.find_elements(By.CSS_SELECTOR, "[data-spot] button, [data-spot] a"), "the spot of the big button holds no action after Dose 2")
        status = json.loads(subprocess.run([binary, "status", "--json", "--db", database, "--tz", "America/New_York", "--now", (DOSE1 + datetime.timedelta(minutes=171)).isoformat()],
                                           check=True, capture_output=True, text=True).stdout)
        check(status["wake_at"] is None and status["phase"] == "completed" and status["extra_dose_count"] == 0,
              f"the double tap left the night open with one Dose 2 (phase {status['phase']}, wake {status['wake_at']})")
        check(fits(driver), "Tonight (Dose 2 taken) fits without scrolling")
        audit(driver, "tonight-dose2_taken", out)
        settled(driver)
        driver.find_element(By.CSS_SELECTOR, "form[data-confirm='early_wake'] button").click()
        dialog = wait.until(EC.visibility_of_element_located((By.ID, "risk-dialog")))
        check("Are you up for the day?" in dialog.text and dialog.find_element(By.CSS_SELECTOR, "[data-risk-no]").text == "Keep sleeping",
              "Wake Up 10 minutes after Dose 2 asks first, Keep sleeping filled")
        apart(driver)
        dialog.find_element(By.CSS_SELECTOR, "[data-risk-yes]").click()
        wait.until(lambda d: "Morning check-in" in primary(d).text)
        settled(driver)
        primary(driver).click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "form[action='/ui/checkin']")))
        check(len(driver.find_elements(By.CSS_SELECTOR, "details.more")) >= 5, "the check-in keeps its deep dives behind disclosures")
        audit(driver, "page-checkin-open", out)
        driver.find_element(By.CSS_SELECTOR, "form[action='/ui/checkin'] button.primary").click()
        try:
            wait.until(lambda d: "wellness score" in d.page_source)
        except Exception:
            print(driver.find_element(By.TAG_NAME, "main").text[:800]); raise
        check(True, "the quick check-in saves in one tap and shows the wellness score")
        audit(driver, "checkin-saved", out)
        driver.get(info["listening"] + "/")
        # D17: the closed night is under 8 hours from its last dose, so Tonight shows it, not a Take Dose 1 button.
        heading = driver.find_element(By.TAG_NAME, "h1").text
        check(heading == "A new Dose 1 is possible from 09:20", f"Tonight says when a new Dose 1 is possible ({heading!r})")
        check("Last night: Dose 1 22:30 · Dose 2 01:20." in driver.find_element(By.TAG_NAME, "main").text, "and shows last night's doses")
        check(not driver.find_elements(By.XPATH, "//button[contains(., 'Dose 1')]"), "and offers no Dose 1 button, with or without a confirmation")
        check(fits(driver), "Tonight (a new Dose 1 not yet possible) fits without scrolling")
        audit(driver, "tonight-recent_dose", out)
        driver.find_element(By.LINK_TEXT, "Open that night").click()
        wait.until(lambda d: "Night of 2026-11-21" in d.find_element(By.TAG_NAME, "h1").text)
        check("/details?night=" in driver.current_url, "its link opens that night by its id, to correct its times")
        driver.find_element(By.XPATH, "//summary[text()='Correct the time of Dose 2']").click()
        field = driver.find_element(By.CSS_SELECTOR, "details.correct[open] input[type=datetime-local]")
        driver.execute_script("arguments[0].value = '2026-11-22T01:10'", field)
        audit(driver, "details-correct-time", out)
        apart(driver)
        driver.find_element(By.CSS_SELECTOR, "details.correct[open] button[type=submit]").click()
        wait.until(lambda d: "Corrected: Dose 2 now at 01:10." in d.page_source)
        driver.get(info["listening"] + "/")
        heading = driver.find_element(By.TAG_NAME, "h1").text
        check(heading == "A new Dose 1 is possible from 09:10", f"corrected there, Dose 2 at 01:10 moves the time on Tonight ({heading!r})")
        # A second browser paired in the same minute, from Settings.
        driver.get(info["listening"] + "/settings")
        driver.find_element(By.XPATH, "//button[text()='Pair another device']").click()
        link = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".link a"))).get_attribute("href")
        audit(driver, "page-settings-pairing", out)
        scanned = scanned_qr(driver, out, "pairing-qr")
        check(scanned == link, f"the QR code on Settings scans as the pairing link ({scanned!r})")
        driver.delete_all_cookies()
        driver.get(scanned or link)
        check(driver.find_elements(By.CSS_SELECTOR, "[data-live]"), "a second browser pairs in the same minute, from the scanned code")
        devices = json.loads(subprocess.run([binary, "device", "list", "--json", "--db", database], check=True, capture_output=True, text=True).stdout)
        names = [d["name"] for d in (devices if isinstance(devices, list) else devices.get("devices", []))]
        check(len(names) == len(set(names)) >= 2, f"each paired browser has its own name {names}")
    finally:
        process.terminate()
        process.wait(10)


def reminder_rings(driver, binary, work, out):
    """A reminder rings on an open page: Dose 1 taken 164 min 48 s ago, so the wake alarm comes due within seconds; the earlier reminders passed while no server ran and are logged missed."""
    # 3. A reminder rings on an open page: Dose 1 taken 164 min 48 s ago, so the wake alarm (target 165 min) comes
    # due within seconds; the window-open and pre-alarm reminders passed while no server ran and are logged missed.
    database = os.path.join(work, "reminder.sqlite")
    dose1 = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=164, seconds=48)
    zone = evening_zone(dose1)
    subprocess.run([binary, "dose1", "--db", database, "--tz", zone, "--now", dose1.strftime("%Y-%m-%dT%H:%M:%SZ")],
                   check=True, capture_output=True)
    process, info = serve(binary, database, zone=zone)
    try:
        driver.delete_all_cookies()
        driver.get(info["pairing_url"])
        driver.execute_script("""
            window.__notes = [];
            window.Notification = function (title, options) { window.__notes.push(options.body); };
            window.Notification.permission = "granted";
            window.Notification.requestPermission = function () { return Promise.resolve("granted"); };
            window.__tones = 0;
            const tone = AudioContext.prototype.createOscillator;
            AudioContext.prototype.createOscillator = function () { window.__tones++; return tone.call(this); };
        """)
        alarms = driver.find_element(By.CSS_SELECTOR, "[data-enable-alarms]")
        check(alarms.is_displayed(), "the page offers to turn alarms on")
        alarms.click()
        WebDriverWait(driver, 30, ignored_exceptions=SETTLE).until(lambda d: d.find_element(By.ID, "reminder-banner").is_displayed())
        banner = driver.find_element(By.CSS_SELECTOR, "#reminder-banner [data-reminder-text]").text
        check(banner == "Time for Dose 2.", f"the reminder reaches the open page ({banner!r})")
        check(driver.find_element(By.ID, "reminder-banner").find_element(By.XPATH, "ancestor::section").get_attribute("data-notices") is not None,
              "in the notices at the top, where it moves nothing under a finger")
        check(driver.execute_script("return window.__notes") == ["Time for Dose 2."], "and raises a browser notification")
        check(driver.execute_script("return window.__tones") == 2, "and rings (one test tone when alarms were turned on, one for the alarm)")
        WebDriverWait(driver, 5, ignored_exceptions=SETTLE).until(lambda d: d.find_element(By.ID, "announcer").get_attribute("textContent") != "")
        check(driver.find_element(By.ID, "announcer").get_attribute("textContent") == "Time for Dose 2.", "and is announced to screen readers")
        imup = driver.find_element(By.CSS_SELECTOR, "[data-imup]")
        check(imup.is_displayed(), "an I'm up button appears while the alarm rings")
        # The page's own timer rings again, louder, 7 s later: wait for it rather than sleep.
        WebDriverWait(driver, 15).until(lambda d: int(d.execute_script("return document.body.dataset.alarmRings || '0'")) >= 2)
        check(driver.execute_script("return window.__tones") == 3, "unanswered, the alarm rings again")
        driver.save_screenshot(os.path.join(out, "tonight-alarm-ringing.png"))
        imup.click()
        check(driver.execute_script("return document.body.dataset.alarm") == "answered" and not imup.is_displayed(), "I'm up answers it and the button goes")
    finally:
        process.terminate()
        process.wait(10)


def sign_in(driver, wait, binary, work, out, base_url):
    """A person of a shared PostgreSQL store opens the sign-in link the operator made: the page only asks, the button
    signs this browser in as them, and the same link a second time is refused in words."""
    store = own_schema(base_url, work, "signin")
    port = free_port()
    here = f"http://127.0.0.1:{port}"
    environment = {**os.environ, "DOSETAP_DATABASE_URL": store}
    added = subprocess.run([binary, "person", "add", "alice@example.org", "--name", "Alice", "--link-base", here, "--json"],
                           env=environment, capture_output=True, text=True, check=True)
    link = json.loads(added.stdout)["link"]
    subprocess.run([binary, "person", "add", "bob@example.org", "--json"], env=environment, capture_output=True, check=True)
    served, extra = served_as_hosted(binary, environment)
    process = subprocess.Popen([binary, "serve", "--port", str(port), "--json", "--person", "alice@example.org", *extra], env=served,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        process.stdout.readline()
        driver.get(link)
        button = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "form[action='/signin'] button")))
        check("Sign in to DoseTap" in driver.find_element(By.TAG_NAME, "h1").text, "the sign-in page says what it is")
        check(fits(driver), "the sign-in page fits 390x844 without scrolling")
        audit(driver, "signin", out)
        check(not driver.get_cookie("dosetap_device"), "opening the link signed nothing in")
        button.click()
        wait.until(lambda d: not d.current_url.startswith(here + "/signin"))
        check(bool(driver.get_cookie("dosetap_device")), "the button signed this browser in (its cookie is set)")
        check("/welcome" in driver.current_url or driver.current_url.rstrip("/") == here, f"then setup or Tonight ({driver.current_url})")
        driver.save_screenshot(os.path.join(out, "signin-done.png"))
        devices = subprocess.run([binary, "device", "list", "--json", "--person", "alice@example.org"], env=environment,
                                 capture_output=True, text=True, check=True)
        check(len(json.loads(devices.stdout)) == 1, "Alice has this browser as her one device")
        driver.delete_all_cookies()
        driver.get(link)
        apart(driver)  # the same button where the last tap was: a tap of its own once that one has settled
        wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "form[action='/signin'] button"))).click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[role=alert]")))
        check("does not work here" in driver.find_element(By.CSS_SELECTOR, "[role=alert]").text, "the used link is refused in words")
        audit(driver, "signin-refused", out)
    finally:
        stop_server(process)


def join(driver, wait, binary, work, out, base_url):
    """Sign-up from an invitation (issue 56), served with --sign-up invited: Dave, who has no account, opens the link of
    Alice's invitation; the page only asks, and a half-asleep double tap on its one button (0.3 s apart) makes one
    account with one device and the share, and lands on Alice's Tonight, not on a refusal."""
    store = own_schema(base_url, work, "join")
    port = free_port()
    here = f"http://127.0.0.1:{port}"
    environment = {**os.environ, "DOSETAP_DATABASE_URL": store}
    alice = json.loads(subprocess.run([binary, "person", "add", "alice@example.org", "--name", "Alice", "--json"], env=environment,
                                      capture_output=True, text=True, check=True).stdout)["id"]
    token = json.loads(subprocess.run([binary, "device", "add", "phone", "--person", "alice@example.org", "--json"], env=environment,
                                      capture_output=True, text=True, check=True).stdout)["token"]
    served, extra = served_as_hosted(binary, environment)
    process = subprocess.Popen([binary, "serve", "--port", str(port), "--json", "--sign-up", "invited", *extra], env=served,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        process.stdout.readline()
        request = urllib.request.Request(here + "/v1/shares", method="POST", data=json.dumps({"email": "dave@example.org", "grants": ["view"]}).encode(),
                                         headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        invitation = json.loads(urllib.request.urlopen(request).read())["invite_url"].split("=")[-1]
        driver.delete_all_cookies()
        driver.get(f"{here}/join?token={invitation}")
        button = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "form[action='/join'] button")))
        check("dave@example.org" in driver.find_element(By.TAG_NAME, "main").text, "the page names the address the account is for")
        check(fits(driver), "the sign-up page fits 390x844 without scrolling")
        audit(driver, "join", out)
        check(not driver.get_cookie("dosetap_device"), "opening the link made nothing")
        ActionChains(driver).move_to_element(button).click().pause(0.3).click().perform()
        wait.until(lambda d: d.current_url.startswith(f"{here}/people/{alice}/"))
        time.sleep(3.2)  # past the tap's settling, the page the double tap ended on is the one kept
        check(driver.current_url.startswith(f"{here}/people/{alice}/"), f"the double tap ends on Alice's Tonight ({driver.current_url})")
        check(not driver.find_elements(By.CSS_SELECTOR, "[role=alert].error, .error[role=alert]"), "and no refusal is shown")
        banner = driver.find_element(By.CSS_SELECTOR, "[data-banner]")
        check("Alice" in banner.text and driver.execute_script("const n = document.querySelector('.notices'); return n.scrollHeight <= n.clientHeight + 1"),
              f"the note that Alice has not set DoseTap up fits the notices whole ({banner.text!r})")
        audit(driver, "join-done", out)
        people = json.loads(subprocess.run([binary, "person", "list", "--json"], env=environment, capture_output=True, text=True, check=True).stdout)
        check(sorted(p["email"] for p in people) == ["alice@example.org", "dave@example.org"], f"one account was made ({people})")
        devices = json.loads(subprocess.run([binary, "device", "list", "--json", "--person", "dave@example.org"], env=environment,
                                            capture_output=True, text=True, check=True).stdout)
        check(len(devices) == 1, f"with this browser as its one device ({len(devices)})")
    finally:
        stop_server(process)


def sign_up_by_domain(driver, wait, binary, work, out, base_url):
    """The sign-up page (issue 56), served with --sign-up domain=clinic.example.org and --smtp to a real SMTP server on
    loopback (aiosmtpd, scripts/smtp-peer.py). Dana, invited by no one, finds it from "Not signed in"; a half-asleep
    double tap on "Mail me a link" mails one link; the link's page only asks, and a double tap on "Make my account"
    makes one account with one device and lands on first-run setup, not on a refusal. Carol, who has an account, asks
    the same page and gets the same answer; her link signs this browser in. An address outside the domain is refused on
    the form, kept for correcting."""
    store = own_schema(base_url, work, "signup")
    port = free_port()
    here = f"http://127.0.0.1:{port}"
    environment = {**os.environ, "DOSETAP_DATABASE_URL": store}

    run = json_commands(binary, environment)

    log = os.path.join(work, f"smtp-{port}.log")
    peer = subprocess.Popen([sys.executable, os.path.join(SCRIPTS, "smtp-peer.py"), log], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    smtp_port = json.loads(peer.stdout.readline())["port"]

    def mails(to):
        if not os.path.exists(log):
            return []
        with open(log) as file:
            return [m for m in (json.loads(line) for line in file if line.strip()) if to in m["rcpt_tos"]]

    def link_to(to, count):
        patient(driver, 20).until(lambda d: len(mails(to)) >= count)
        return re.search(r"http://\S+/signup/confirm\?token=\S+", mails(to)[-1]["plain"]).group(0)

    run("person", "add", "carol@clinic.example.org", "--name", "Carol")
    run("person", "add", "alice@example.org", "--name", "Alice")
    served, extra = served_as_hosted(binary, environment)
    process = subprocess.Popen([binary, "serve", "--port", str(port), "--json", "--sign-up", "domain=clinic.example.org",
                                "--smtp", f"smtp://127.0.0.1:{smtp_port}", "--mail-from", "dosetap@clinic.example.org", *extra],
                               env=served, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        process.stdout.readline()
        driver.delete_all_cookies()
        driver.get(here + "/")
        wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "a[href='/signup']")))
        audit(driver, "signup-not-signed-in", out)
        driver.find_element(By.CSS_SELECTOR, "a[href='/signup']").click()
        field = wait.until(EC.element_to_be_clickable((By.ID, "signup-email")))
        apart(driver)  # the button appeared under the finger that tapped the link: held out of sight for the tap's 3 s
        check(fits(driver), "the sign-up page fits 390x844 without scrolling")
        audit(driver, "signup", out)

        field.send_keys("dana@example.org")
        driver.find_element(By.CSS_SELECTOR, "form[data-signup] button").click()
        problem = wait.until(EC.presence_of_element_located((By.ID, "signup-problem"))).text
        check("is not an address at clinic.example.org" in problem, f"an address outside the domain is refused by name ({problem!r})")
        check(driver.find_element(By.ID, "signup-email").get_attribute("value") == "dana@example.org", "and kept in the field to correct")
        apart(driver)
        audit(driver, "signup-refused", out)

        field = driver.find_element(By.ID, "signup-email")
        field.clear()
        field.send_keys("dana@clinic.example.org")
        button = driver.find_element(By.CSS_SELECTOR, "form[data-signup] button")
        ActionChains(driver).move_to_element(button).click().pause(0.3).click().perform()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-sent]")))
        time.sleep(3.2)  # past the tap's settling
        check("A link is on its way to dana@clinic.example.org" in driver.find_element(By.TAG_NAME, "main").text, "the page says where the link went")
        check(not driver.find_elements(By.CSS_SELECTOR, "[role=alert]"), "the second tap brought no refusal")
        audit(driver, "signup-sent", out)
        link = link_to("dana@clinic.example.org", 1)
        time.sleep(2.5)  # the sender runs every second: a second message would be here by now
        check(len(mails("dana@clinic.example.org")) == 1, f"the double tap mailed one link ({len(mails('dana@clinic.example.org'))})")

        driver.delete_all_cookies()
        driver.get(link)
        button = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "form[action='/signup/confirm'] button")))
        check("Make my account" in button.text and "dana@clinic.example.org" in driver.find_element(By.TAG_NAME, "main").text,
              "the link's page says it makes Dana's account")
        check(fits(driver), "the link's page fits 390x844 without scrolling")
        check(not driver.get_cookie("dosetap_device"), "opening the link made nothing")
        audit(driver, "signup-confirm", out)
        ActionChains(driver).move_to_element(button).click().pause(0.3).click().perform()
        wait.until(lambda d: d.current_url.startswith(here + "/welcome"))
        time.sleep(3.2)
        check(driver.current_url.startswith(here + "/welcome"), f"the double tap ends on first-run setup ({driver.current_url})")
        check(not driver.find_elements(By.CSS_SELECTOR, ".notice[role=alert]"), "and no refusal is shown")
        audit(driver, "signup-welcome", out)
        people = run("person", "list")
        check(sorted(p["email"] for p in people) == ["alice@example.org", "carol@clinic.example.org", "dana@clinic.example.org"],
              f"one account was made ({[p['email'] for p in people]})")
        check(len(run("device", "list", "--person", "dana@clinic.example.org")) == 1, "with this browser as its one device")

        # Carol has an account: the page answers her as it answered Dana, and her link signs this browser in.
        driver.delete_all_cookies()
        driver.get(here + "/signup")
        wait.until(EC.element_to_be_clickable((By.ID, "signup-email"))).send_keys("carol@clinic.example.org")
        driver.find_element(By.CSS_SELECTOR, "form[data-signup] button").click()
        sent = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-sent]"))).text
        check(sent.replace("carol@", "x@") == "A link is on its way to x@clinic.example.org, unless that address was sent five mails here in the last hour. "
              + re.search(r"It works once, until .*$", sent).group(0), f"the same answer for an address with an account ({sent!r})")
        driver.delete_all_cookies()
        driver.get(link_to("carol@clinic.example.org", 1))
        button = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "form[action='/signup/confirm'] button")))
        check("Sign in on this browser" in button.text, f"her link's page signs in ({button.text!r})")
        audit(driver, "signup-sign-in", out)
        ActionChains(driver).move_to_element(button).click().pause(0.3).click().perform()
        # Tonight, which sends someone who never finished first-run setup (Carol was added at the terminal) there first.
        wait.until(lambda d: urllib.parse.urlsplit(d.current_url).path in ("/", "/welcome"))
        time.sleep(3.2)
        check(urllib.parse.urlsplit(driver.current_url).path in ("/", "/welcome") and not driver.find_elements(By.CSS_SELECTOR, ".notice[role=alert]"),
              f"the double tap ends signed in, on Carol's Tonight or her setup ({driver.current_url})")
        audit(driver, "signup-signed-in", out)
        check(len(run("device", "list", "--person", "carol@clinic.example.org")) == 1, "with one new device")
        check(len(run("person", "list")) == 3, "and no account made for her address")
    finally:
        stop_server(process)
        peer.stdin.close()
        peer.wait(10)


def operator_page(driver, wait, binary, work, out, base_url):
    """The operator's page (issue 56): Olive, made an operator with `person add --operator`, signs in with her link and
    reads /operator (people, a pending invitation, mail, reminders, instances, the database, the audit); a half-asleep
    double tap on "Add" adds one person and shows one link, and one on "Remove", with the phrase typed, removes Pat once
    and lands on the page that says so, not on a refusal."""
    store = own_schema(base_url, work, "operator")
    port = free_port()
    here = f"http://127.0.0.1:{port}"
    environment = {**os.environ, "DOSETAP_DATABASE_URL": store}

    run = json_commands(binary, environment)

    link = run("person", "add", "olive@example.org", "--name", "Olive", "--operator", "--link-base", here)["link"]
    run("person", "add", "pat@example.org", "--name", "Pat")
    token = run("device", "add", "phone", "--person", "pat@example.org")["token"]
    served, extra = served_as_hosted(binary, environment)
    process = subprocess.Popen([binary, "serve", "--port", str(port), "--json", *extra], env=served, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        process.stdout.readline()
        request = urllib.request.Request(here + "/v1/shares", method="POST", data=json.dumps({"email": "sam@example.org", "grants": ["view"]}).encode(),
                                         headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        urllib.request.urlopen(request).read()
        driver.delete_all_cookies()
        driver.get(link)
        wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "form[action='/signin'] button"))).click()
        wait.until(lambda d: not d.current_url.startswith(here + "/signin"))
        apart(driver)
        driver.get(here + "/operator")
        main = wait.until(EC.presence_of_element_located((By.TAG_NAME, "main"))).text
        for words in ["Pat (pat@example.org)", "sam@example.org from Pat (pat@example.org)", "No reminder fired in the last 24 hours.",
                      "connections:", "made an operator"]:
            check(words in main, f"the operator's page shows {words!r}")
        audit(driver, "operator", out)

        driver.find_element(By.ID, "add-email").send_keys("quinn@example.org")
        driver.find_element(By.ID, "add-name").send_keys("Quinn")
        button = driver.find_element(By.CSS_SELECTOR, "form[data-add] button")
        ActionChains(driver).move_to_element(button).click().pause(0.3).click().perform()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-signin-url]")))
        time.sleep(3.2)  # past the tap's settling
        check("Added Quinn (quinn@example.org)" in driver.find_element(By.TAG_NAME, "main").text, "the page says who was added")
        check(not driver.find_elements(By.CSS_SELECTOR, "[role=alert]"), "the second tap brought no refusal")
        audit(driver, "operator-added", out)
        people = subprocess.run([binary, "person", "list", "--json"], env=environment, capture_output=True, text=True, check=True).stdout
        check(sorted(p["email"] for p in json.loads(people)) == ["olive@example.org", "pat@example.org", "quinn@example.org"], f"one person added ({people})")

        driver.get(here + "/operator")
        pat = driver.find_element(By.XPATH, "//li[.//strong[contains(., 'pat@example.org')]]")
        pat.find_element(By.TAG_NAME, "summary").click()
        field = pat.find_element(By.CSS_SELECTOR, "form[data-remove] input[name=confirm]")
        field.send_keys("Delete pat@example.org and all their data")
        driver.save_screenshot(os.path.join(out, "operator-remove.png"))
        apart(driver)
        remove = pat.find_element(By.CSS_SELECTOR, "form[data-remove] button")
        ActionChains(driver).move_to_element(remove).click().pause(0.3).click().perform()
        wait.until(lambda d: "done=removed" in d.current_url)
        time.sleep(3.2)
        check("Removed, with every record of theirs" in driver.find_element(By.TAG_NAME, "main").text, "the page says Pat was removed")
        check(not driver.find_elements(By.CSS_SELECTOR, "[role=alert]"), "the second tap brought no refusal")
        audit(driver, "operator-removed", out)
        driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        driver.save_screenshot(os.path.join(out, "operator-bottom.png"))
        people = json.loads(subprocess.run([binary, "person", "list", "--json"], env=environment, capture_output=True, text=True, check=True).stdout)
        check(sorted(p["email"] for p in people) == ["olive@example.org", "quinn@example.org"], f"Pat was removed ({people})")
    finally:
        stop_server(process)


def caregiving(driver, wait, binary, work, out, base_url):
    """Three people of a shared store, on a fixed clock 170 minutes after Alice's Dose 1: Bob (log) lands on his People,
    opens Alice's Tonight from the switcher and takes her Dose 2 with the big button; Carol (view and report), her
    clinician, sees each patient's latest night and 30 nights on target with the report link; Alice's Sharing and audit
    pages then name Bob. Each page is screenshot and checked with axe-core at 390×844."""
    store = own_schema(base_url, work, "care")
    port = free_port()
    here = f"http://127.0.0.1:{port}"
    environment = {**os.environ, "DOSETAP_DATABASE_URL": store}

    def run(*arguments):
        return subprocess.run([binary, *arguments, "--tz", "America/New_York"], env=environment, capture_output=True, text=True, check=True).stdout

    people = {name: json.loads(run("person", "add", f"{name.lower()}@example.org", "--name", name, "--link-base", here, "--json"))
              for name in ["Alice", "Bob", "Carol", "Dave"]}
    alice = people["Alice"]["id"]
    # Three nights of Alice's (Dose 2 after 165, 205 and 168 minutes), then tonight's Dose 1 at 22:30 New York time.
    first = datetime.datetime(2026, 11, 18, 3, 30, tzinfo=datetime.timezone.utc)
    for night, minutes in enumerate([165, 205, 168]):
        dose1 = first + datetime.timedelta(days=night)
        run("dose1", "--person", "alice@example.org", "--now", dose1.isoformat())
        run("dose2", "--person", "alice@example.org", "--now", (dose1 + datetime.timedelta(minutes=minutes)).isoformat())
    tonight = first + datetime.timedelta(days=3)
    run("dose1", "--person", "alice@example.org", "--now", tonight.isoformat())
    token = json.loads(run("device", "add", "phone", "--person", "alice@example.org", "--json"))["token"]
    now = (tonight + datetime.timedelta(minutes=170)).isoformat()
    # Served as a hosted store is: as a role that owns nothing, so every page and tap below runs under row-level security.
    served, extra = served_as_hosted(binary, environment)
    process = subprocess.Popen([binary, "serve", "--port", str(port), "--json", "--now", now, "--tz", "America/New_York", *extra], env=served,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        process.stdout.readline()

        def alices(method, path, body):
            request = urllib.request.Request(here + path, method=method, data=json.dumps(body).encode(),
                                             headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
            with urllib.request.urlopen(request) as answer:
                return json.loads(answer.read())

        def sign_in_and_accept(name, grants):
            invite_url = alices("POST", "/v1/shares", {"email": f"{name.lower()}@example.org", "grants": grants})["invite_url"]
            driver.delete_all_cookies()
            driver.get(people[name]["link"])
            wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "form[action='/signin'] button"))).click()
            wait.until(lambda d: not d.current_url.startswith(here + "/signin"))
            driver.get(invite_url)
            wait.until(EC.element_to_be_clickable((By.XPATH, "//button[normalize-space()='Accept']"))).click()
            wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[role=alert]")))

        sign_in_and_accept("Bob", ["log", "alarms"])
        driver.find_element(By.LINK_TEXT, "Open their Tonight").click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-on-behalf]")))
        check(driver.current_url == f"{here}/people/{alice}/", f"the invitation leads to Alice's Tonight ({driver.current_url})")
        said = driver.find_element(By.CSS_SELECTOR, "[data-on-behalf]").text
        check("Logging for Alice" in said, f"the page says whose night it is and that taps are for her ({said})")
        current = driver.find_element(By.CSS_SELECTOR, "nav.people [aria-current=page]").text
        check(current == "Alice", f"the switcher marks Alice's night ({current})")
        check(primary(driver).text == "Take Dose 2", f"the big button is Take Dose 2 in her window ({primary(driver).text})")
        check(not driver.find_elements(By.CSS_SELECTOR, "a[href='/medications']"), "her other pages are not offered")
        check(fits(driver), "her Tonight fits 390x844 without scrolling")
        audit(driver, "caregiver-tonight", out)
        primary(driver).click()
        wait.until(lambda d: "did=dose2" in d.current_url)
        outcome = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-outcome]"))).text
        check("Dose 2" in outcome, f"the outcome is said on her page ({outcome})")
        check(not driver.find_elements(By.CSS_SELECTOR, "[data-undo-until]"), "no Undo for Bob: undo is Alice's own")
        audit(driver, "caregiver-tonight-done", out)
        status = json.loads(urllib.request.urlopen(urllib.request.Request(here + "/v1/status", headers={"Authorization": "Bearer " + token})).read())
        check(status.get("dose2_at") is not None, "Alice's own status has the Dose 2 Bob gave")
        driver.get(here + "/")
        wait.until(lambda d: d.current_url.startswith(here + "/people"))
        check(driver.current_url == here + "/people", "Bob, who has not set DoseTap up for himself, lands on his People")
        audit(driver, "caregiver-people", out)

        sign_in_and_accept("Carol", ["view", "report"])
        apart(driver)
        driver.get(here + "/people")
        card = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-person]"))).text
        check("Alice" in card and "Dose 2 on target" in card and "Latest night" in card, f"the clinician's list shows Alice at a glance ({card})")
        report = driver.find_element(By.LINK_TEXT, "Report, 30 nights").get_attribute("href")
        check(report == f"{here}/people/{alice}/report/file?nights=30", f"and the report link ({report})")
        check(fits(driver), "the clinician's list fits 390x844 without scrolling")
        audit(driver, "clinician-list", out)
        driver.get(report)
        check("Report" in driver.title or "DoseTap" in driver.title, f"the report opens ({driver.title})")
        # The clinician's own view of Alice: her History, a night's Details, her Insights, each read in Alice's zone and
        # without a control that changes her records; the PDF is a real PDF.
        for page, heading in [("history", "History"), ("insights", "Insights")]:
            apart(driver)
            driver.get(f"{here}/people/{alice}/{page}")
            shown = wait.until(EC.presence_of_element_located((By.TAG_NAME, "h1"))).text
            main = driver.find_element(By.TAG_NAME, "main").text
            check(shown == heading and "Delete" not in main and "Settings" not in driver.find_element(By.TAG_NAME, "nav").text,
                  f"the clinician sees Alice's {heading}, to read only ({shown!r})")
            audit(driver, f"clinician-{page}", out)
            if page == "history":
                details = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, f"a[href*='/people/{alice}/details?night=']")]
                check(bool(details), "Alice's nights link to their Details for the clinician")
        if details:
            apart(driver)
            driver.get(details[0])
            main = wait.until(EC.presence_of_element_located((By.TAG_NAME, "main"))).text
            check("Night of" in main and "Correct the time" not in main, "a night's Details, without corrections")
            audit(driver, "clinician-details", out)
        cookie = "; ".join(f"{c['name']}={c['value']}" for c in driver.get_cookies())
        with urllib.request.urlopen(urllib.request.Request(f"{here}/people/{alice}/report/file?nights=30&format=pdf", headers={"Cookie": cookie})) as answer:
            pdf = answer.read()
        check(pdf.startswith(b"%PDF") and answer.headers.get("Content-Type", "").startswith("application/pdf"),
              f"the clinician downloads Alice's report as a PDF ({len(pdf)} bytes)")

        driver.delete_all_cookies()
        driver.get(people["Alice"]["link"])
        wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "form[action='/signin'] button"))).click()
        wait.until(lambda d: not d.current_url.startswith(here + "/signin"))
        driver.get(here + "/settings/sharing")
        shares = wait.until(EC.presence_of_element_located((By.TAG_NAME, "main"))).text
        check("bob@example.org" in shares and "carol@example.org" in shares, "Alice's Sharing lists both shares")
        audit(driver, "sharing-settings", out)
        # An invitation made on the page, its QR code read back as a phone's camera would.
        driver.find_element(By.ID, "share-email").send_keys("dave@example.org")
        apart(driver)
        driver.find_element(By.XPATH, "//button[normalize-space()='Make an invitation link']").click()
        link = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-invite-url]"))).get_attribute("href")
        audit(driver, "sharing-invitation", out)
        scanned = scanned_qr(driver, out, "invitation-qr")
        check(scanned == link and "/invitation?token=" in link, f"the invitation's QR code scans as its link ({scanned!r})")
        apart(driver)
        driver.get(here + "/settings/sharing")
        minutes = driver.find_element(By.CSS_SELECTOR, "form[data-ladder] input[type=number]")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", minutes)
        minutes.send_keys("225")
        driver.find_element(By.XPATH, "//button[normalize-space()='Save the ladder']").click()
        saved = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".notice.saved"))).text
        check("Alarm ladder saved." in saved, f"the ladder is saved from the page ({saved})")
        ladder = json.loads(urllib.request.urlopen(urllib.request.Request(here + "/v1/ladder", headers={"Authorization": "Bearer " + token})).read())
        check([rung["person"]["email"] for rung in ladder["rungs"]] == ["bob@example.org"], f"Bob is the ladder's one rung ({ladder})")
        driver.execute_script("document.getElementById('ladder').scrollIntoView()")
        audit(driver, "sharing-ladder", out)
        driver.get(here + "/settings/audit")
        entries = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "ul.audit"))).text
        check("Bob (bob@example.org) logged: Dose 2 recorded on Tonight" in entries, f"the audit names Bob's tap ({entries[:300]})")
        audit(driver, "access-audit", out)
    finally:
        stop_server(process)


def invitation(driver, wait, binary, work, out, base_url):
    """On a server for everyone of a shared store, Bob signs in with his own link and opens the invitation Alice made:
    the page says who shares and what each grant allows, Accept takes it once, and Alice's night is then his to see."""
    store = own_schema(base_url, work, "invite")
    port = free_port()
    here = f"http://127.0.0.1:{port}"
    environment = {**os.environ, "DOSETAP_DATABASE_URL": store}
    alice = json.loads(subprocess.run([binary, "person", "add", "alice@example.org", "--name", "Alice", "--json"], env=environment,
                                      capture_output=True, text=True, check=True).stdout)
    bob = json.loads(subprocess.run([binary, "person", "add", "bob@example.org", "--link-base", here, "--json"], env=environment,
                                    capture_output=True, text=True, check=True).stdout)
    token = json.loads(subprocess.run([binary, "device", "add", "phone", "--person", "alice@example.org", "--json"], env=environment,
                                      capture_output=True, text=True, check=True).stdout)["token"]
    served, extra = served_as_hosted(binary, environment)
    process = subprocess.Popen([binary, "serve", "--port", str(port), "--json", *extra], env=served, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        check(json.loads(process.stdout.readline()).get("people") == 2, "serve says it serves two people")

        def alices(method, path, body):
            request = urllib.request.Request(here + path, method=method, data=json.dumps(body).encode(),
                                             headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
            with urllib.request.urlopen(request) as answer:
                return json.loads(answer.read())

        invite_url = alices("POST", "/v1/shares", {"email": "bob@example.org", "grants": ["log"]})["invite_url"]
        alices("POST", "/v1/doses/take", {"type": "dose1"})
        driver.get(bob["link"])
        wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "form[action='/signin'] button"))).click()
        wait.until(lambda d: not d.current_url.startswith(here + "/signin"))
        driver.get(invite_url)
        heading = wait.until(EC.presence_of_element_located((By.TAG_NAME, "h1"))).text
        check("Alice (alice@example.org) shares with you" in heading, f"the invitation names who shares ({heading})")
        page = driver.find_element(By.TAG_NAME, "main").text if driver.find_elements(By.TAG_NAME, "main") else driver.page_source
        check("Log: record doses" in page and "View:" in page, "each grant is said in words")
        check(fits(driver), "the invitation fits 390x844 without scrolling")
        audit(driver, "invitation", out)
        driver.find_element(By.XPATH, "//button[normalize-space()='Accept']").click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[role=alert]")))
        said = driver.find_element(By.CSS_SELECTOR, "[role=alert]").text
        check("Alice (alice@example.org) now shares with you: view and log" in said, said)
        audit(driver, "invitation-accepted", out)
        driver.get(here + "/v1/people/" + alice["id"] + "/status")
        check('"phase":"before_window"' in driver.page_source.replace(" ", ""), "Bob's browser now reads Alice's night")
        driver.get(invite_url)
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[role=alert]")))
        check("cannot be used" in driver.find_element(By.CSS_SELECTOR, "[role=alert]").text, "the used invitation is refused in words")
    finally:
        stop_server(process)
