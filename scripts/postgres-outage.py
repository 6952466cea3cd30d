#!/usr/bin/env python3
"""PostgreSQL going away mid-night and coming back, under `dosetap serve` (issue 33).

A TCP proxy stands between the server and PostgreSQL so the database can be cut off and restored without touching the
shared test cluster. The night:
  1. pair a device (`device add`) and take Dose 1 over HTTP through the proxy: 200;
  2. cut the proxy (every open connection dropped, new ones refused): a status, a logged event and a Dose 2 each answer
     503 with a Retry-After header and an error that names the database, never 500, and /health still answers;
  3. restore the proxy: within a few seconds, without restarting `serve`, status answers 200 and an event logs;
  4. what was refused was not kept: the night holds Dose 1 and the one event logged after the return, nothing else.

With `--people 2` the store holds two people and `serve` serves both (the night is Alice's); either way the server
must stop within 20 s of SIGTERM afterwards, which a statement left unanswered on a cut connection once prevented.

Usage: scripts/postgres-outage.py path/to/dosetap postgres://USER@127.0.0.1:PORT/DATABASE [--people 2]
"""
import json, os, select, socket, subprocess, sys, threading, time, urllib.error, urllib.parse, urllib.request, uuid

from hosted_night import granted

failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


class Proxy:
    """Forwards loopback connections to PostgreSQL; `cut` drops them all and refuses new ones until `restore`."""

    def __init__(self, target_host, target_port):
        self.target = (target_host, target_port)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.open = True
        self.stalled = False
        self.pairs = []
        self.lock = threading.Lock()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            client, _ = self.listener.accept()
            if not self.open:
                client.close()
                continue
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.pairs.append((client, upstream))
            threading.Thread(target=self.pump, args=(client, upstream), daemon=True).start()

    def pump(self, a, b):
        try:
            while True:
                ready, _, _ = select.select([a, b], [], [], 1)
                if self.stalled:
                    # Held: nothing is read or forwarded, and nothing is closed, as a network that drops packets.
                    time.sleep(0.05)
                    continue
                for source in ready:
                    data = source.recv(65536)
                    if not data:
                        raise OSError
                    (b if source is a else a).sendall(data)
        except OSError:
            for end in (a, b):
                try:
                    end.close()
                except OSError:
                    pass

    def cut(self):
        self.open = False
        with self.lock:
            pairs, self.pairs = self.pairs, []
        for client, upstream in pairs:
            for end in (client, upstream):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                    end.close()
                except OSError:
                    pass

    def restore(self):
        self.open = True

    def stall(self, stalled=True):
        self.stalled = stalled


def request(base, path, token=None, body=None, method=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method or ("POST" if data else "GET"))
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if data:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def main():
    binary, url = sys.argv[1], sys.argv[2]
    people = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--people" else 1
    parsed = urllib.parse.urlparse(url)
    proxy = Proxy(parsed.hostname, parsed.port or 5432)
    schema = "outage_" + uuid.uuid4().hex[:12]
    through = parsed._replace(netloc=parsed.netloc.replace(f"{parsed.hostname}:{parsed.port}", f"127.0.0.1:{proxy.port}")).geturl()
    store = through + ("&" if "?" in through else "?") + "search_path=" + schema
    env = {**os.environ, "DOSETAP_DATABASE_URL": store}
    who = []
    if people > 1:
        for email in ["alice@example.org", "bob@example.org"][:people]:
            subprocess.run([binary, "person", "add", email, "--json"], env=env, check=True, capture_output=True, text=True)
        who = ["--person", "alice@example.org"]
    token = json.loads(subprocess.run([binary, "device", "add", "outage", "--json", *who], env=env, check=True, capture_output=True, text=True).stdout)["token"]
    # Served as a hosted store is: as the granted role (.ci/run's $DOSETAP_TEST_POSTGRES_ROLE) when there is one, through
    # the proxy too; else as the schema's owner, which `serve` refuses unless told.
    url, extra = granted(binary, store, os.environ.get("DOSETAP_TEST_POSTGRES_ROLE"))
    server = subprocess.Popen([binary, "serve", "--port", "0", "--json", "--tz", "UTC", *extra], env={**env, "DOSETAP_DATABASE_URL": url},
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        base = json.loads(server.stdout.readline())["listening"]
        status, _, body = request(base, "/v1/doses/take", token, {"type": "dose1"})
        check(status == 200, f"Dose 1 through the proxy: {status}")

        proxy.cut()
        for name, path, body in [("status", "/v1/status", None), ("a logged event", "/v1/events/log", {"type": "water"}),
                                 ("Dose 2", "/v1/doses/take", {"type": "dose2", "confirm": ["early"]})]:
            started = time.monotonic()
            status, headers, text = request(base, path, token, body)
            took = time.monotonic() - started
            code = (json.loads(text).get("error") or {}).get("code") if text.startswith("{") else None
            check(status == 503 and "Retry-After" in headers and code == "503_STORAGE_BUSY" and "127.0.0.1" in text,
                  f"{name} with the database gone: {status} {code}, Retry-After {headers.get('Retry-After')}, in {took:.1f} s: {text[:160]}")
        check(request(base, "/health")[0] == 200, "/health still answers while the database is gone")

        proxy.restore()
        deadline = time.monotonic() + 10
        status = None
        while time.monotonic() < deadline:
            status, _, _ = request(base, "/v1/status", token)
            if status == 200:
                break
            time.sleep(0.2)
        check(status == 200, f"status answers 200 again once the database is back, without restarting serve ({status})")
        status, _, _ = request(base, "/v1/events/log", token, {"type": "bathroom"})
        check(status == 200, f"an event logs after the return: {status}")
        status, _, text = request(base, "/v1/status", token)
        night = json.loads(text)
        events = subprocess.run([binary, "history", "--json", *who], env=env, check=True, capture_output=True, text=True).stdout
        check('"bathroom"' in events and '"water"' not in events and '"dose2"' not in events,
              "the night holds Dose 1 and the event logged after the return; nothing refused was kept")
        check(night.get("phase") not in (None, "no_dose1"), f"Dose 1 survived the outage (phase {night.get('phase')})")

        # The database stops answering without closing anything (packets dropped): /health and /ready still answer at
        # once, naming it, rather than hanging on the read.
        proxy.stall()
        for path, expected in [("/health", 200), ("/ready", 503)]:
            started = time.monotonic()
            status, _, text = request(base, path)
            took = time.monotonic() - started
            check(status == expected and '"unreachable"' in text and took < 4,
                  f"{path} with the database not answering: {status} in {took:.1f} s: {text[:160]}")
        proxy.stall(False)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and '"reachable"' not in request(base, "/health")[2]:
            time.sleep(0.2)
        check('"reachable"' in request(base, "/health")[2], "/health says reachable again once the database answers")
    finally:
        server.terminate()
        started = time.monotonic()
        try:
            server.wait(20)
            check(True, f"serve stopped {time.monotonic() - started:.1f} s after SIGTERM")
        except subprocess.TimeoutExpired:
            check(False, "serve stopped within 20 s of SIGTERM")
            server.kill()
            server.wait()
        subprocess.run(["psql", url, "-q", "-c", f"DROP SCHEMA IF EXISTS {schema} CASCADE"], capture_output=True)
    print("PASS" if not failures else f"FAIL ({len(failures)})")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
