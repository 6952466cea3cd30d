"""What the hosting scripts (reminder-failover.py, upgrade-test.py) share: their checks, instants as DoseTap writes
them, a time zone where it is now the middle of the night, a throwaway schema served as a granted role, and a webhook
sink that records every reminder it accepts."""
import datetime, http.server, json, os, statistics, subprocess, threading, time, urllib.parse, uuid

failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)


def iso(instant):
    return datetime.datetime.fromtimestamp(instant, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-4] + "Z"


def parse(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def night_zone():
    """A zone where it is now about 02:30, so a Dose 1 a few hours back falls in the evening before and no night is
    closed by the evening's rollover."""
    utc = datetime.datetime.now(datetime.timezone.utc)
    hours = round((2.5 - utc.hour - utc.minute / 60) % 24)
    hours = hours - 24 if hours > 14 else hours
    return "Europe/London" if hours == 0 else f"Etc/GMT{'-' if hours > 0 else '+'}{abs(hours)}"


def throwaway_store(binary, url, role, prefix):
    """A new schema of `url` (its owner's URL) and the URL to serve it by: as `role` once the owner granted it, else as
    the owner. Returns (schema, owner URL, serving URL)."""
    schema = prefix + "_" + uuid.uuid4().hex[:12]
    owner = url + ("&" if "?" in url else "?") + "search_path=" + schema
    return schema, owner, granted(binary, owner, role)[0]


def granted(binary, owner, role):
    """The URL to serve the store at `owner` (its owner's URL) by, and the options `serve` then needs: as `role` once
    the owner granted it; with no role, as the owner, which `serve` refuses without `--allow-owner-role`."""
    if not role:
        return owner, owner_serving(role)
    subprocess.run([binary, "store", "grant", role, "--database", owner], check=True, capture_output=True)
    parsed = urllib.parse.urlparse(owner)
    return parsed._replace(netloc=f"{role}@{parsed.hostname}:{parsed.port}").geturl(), []


def owner_serving(role):
    """What `serve` needs to serve as the schema's owner when no role was granted: the tables' owner, like a superuser,
    is refused without `--allow-owner-role` (row-level security would not hold for it)."""
    return [] if role else ["--allow-owner-role"]


def stop(servers):
    """SIGTERM to every server still running; each must stop within 20 s (else it is killed, and that is a failure)."""
    for server in servers:
        if server.poll() is None:
            server.terminate()
    for server in servers:
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            check(False, f"serve {server.pid} stopped within 20 s of SIGTERM")
            server.kill()


def verdict():
    """Prints PASS or FAIL and returns the exit status."""
    print("PASS" if not failures else f"FAIL ({len(failures)})", flush=True)
    return 0 if not failures else 1


def drop(url, schema):
    subprocess.run(["psql", url, "-q", "-c", f"DROP SCHEMA IF EXISTS {schema} CASCADE"], capture_output=True)


class Sink(http.server.BaseHTTPRequestHandler):
    """The webhook: every POST it accepts, as (arrival, Idempotency-Key, body). `refuse(key)` says whether to answer
    one 503 instead (a subclass decides)."""
    received = []
    lock = threading.Lock()

    def refuse(self, key):
        return False

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        key = self.headers.get("Idempotency-Key")
        with Sink.lock:
            refused = self.refuse(key)
            if not refused:
                Sink.received.append((time.time(), key, body))
        self.send_response(503 if refused else 204)
        self.end_headers()

    def log_message(self, *args):
        pass

    @staticmethod
    def start(handler):
        """Serves `handler` on a free loopback port; returns the server and the hook's URL."""
        sink = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=sink.serve_forever, daemon=True).start()
        return sink, f"http://127.0.0.1:{sink.server_address[1]}/hook"

    @staticmethod
    def accepted():
        with Sink.lock:
            return list(Sink.received)


def people_ids(binary, env):
    listed = json.loads(subprocess.run([binary, "person", "list", "--json"], env=env, capture_output=True, text=True).stdout)
    return {entry["email"]: entry["id"] for entry in (listed.get("people", []) if isinstance(listed, dict) else listed)}


def cpu_seconds(pid):
    """User and system CPU the process has used, in seconds (/proc/PID/stat)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return None


def check_arrivals(received, expected, since):
    """Checks the sink's arrivals (`Sink.accepted()`) against `expected`, {(person id, kind, fire time rounded to the
    millisecond): fire time}: no occurrence twice (by `Idempotency-Key`), every expected one arrived, none before its
    time, each within 10 s; prints lateness p50, p99 and the worst. Returns the lateness of each, in order."""
    arrivals = {}
    for arrived, key, _ in received:
        arrivals.setdefault(key, []).append(arrived)
    twice = [key for key, copies in arrivals.items() if len(copies) > 1]
    check(not twice, f"no occurrence arrived twice ({len(received)} arrivals, {len(arrivals)} occurrences): {twice[:5]}")
    for key in twice[:5]:
        print(f"     {key}: arrived at " + ", ".join(f"{arrived - since:+.2f} s" for arrived in arrivals[key]), flush=True)
    check(all(key for _, key, _ in received), "every arrival carried an Idempotency-Key")
    by_occurrence = {}
    for arrived, _, body in received:
        by_occurrence.setdefault((body.get("person_id"), body["kind"], round(parse(body["fire_at"]), 3)), []).append(arrived)
    lateness, missing = [], []
    for occurrence, instant in expected.items():
        copies = by_occurrence.get(occurrence)
        if copies:
            lateness.append(min(copies) - instant)
        else:
            missing.append(f"{occurrence[0]} {occurrence[1]} {iso(instant)}")
    check(not missing, f"every reminder due during the run arrived: {len(expected) - len(missing)} of {len(expected)}; missing {missing[:5]}")
    ordered = sorted(lateness)
    if ordered:
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        print(f"lateness over {len(ordered)} reminders: p50 {statistics.median(ordered):.2f} s, p99 {p99:.2f} s, "
              f"worst {ordered[-1]:.2f} s, earliest {ordered[0]:.2f} s", flush=True)
        check(ordered[-1] <= 10, f"each arrived within 10 s of its time (worst {ordered[-1]:.2f} s)")
        check(ordered[0] >= -0.5, f"none arrived before its time (earliest {ordered[0]:.2f} s)")
    return ordered


def wind_up(servers, url, schema, keep, sink):
    """Stops the servers, drops the schema (or says it was kept), and stops the sink."""
    stop(servers)
    if keep:
        print(f"kept schema {schema}")
    else:
        drop(url, schema)
    sink.shutdown()


def start_instances(binary, count, env, hook, instances, extra=()):
    """Starts `count` `serve` instances on free ports, each sending to the webhook `hook` (with `extra` options),
    appending (process, base URL) to `instances` as each starts, so the caller's clean-up stops those started even if a
    later one fails."""
    for _ in range(count):
        server = subprocess.Popen([binary, "serve", "--port", "0", "--json", "--webhook", hook, *extra], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        instances.append((server, json.loads(server.stdout.readline())["listening"]))
