#!/usr/bin/env python3
"""Crash test of `dosetap serve` under concurrent writes: SIGKILL the server while 16 clients log events at once.

The clients send their own event ids. Actions that arrive together commit together (group commit), so this is the test
that a batch is acknowledged only once it is on disk: after every kill, every event a client was answered 200 for must be
in the store, whole, and a client answered nothing may or may not have been recorded, but never twice.

Usage: scripts/serve-crash-test.py path/to/dosetap [--kills 10] [--clients 16] [--seed N] [--database URL]
"""
import argparse, json, os, random, signal, subprocess, sys, tempfile, threading, time, urllib.error, urllib.request, uuid

from hosted_night import granted


def post(base, token, body):
    request = urllib.request.Request(base + "/v1/events/log", data=json.dumps(body).encode(), method="POST")
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def stored(binary, store):
    """Every recorded event id with its note, read back through the CLI (so the same on either store)."""
    out = subprocess.run([binary, "history", "--limit", "100", "--json", *store, "--tz", "UTC"], check=True, capture_output=True, text=True).stdout
    events = {}
    for group in json.loads(out).get("groups", []):
        for night in group.get("nights", []):
            for event in night.get("events", []):
                if event["id"] in events:
                    raise SystemExit(f"FAIL: event {event['id']} stored twice")
                events[event["id"]] = event.get("note")
    return events


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--database")
    options = parser.parse_args()
    random.seed(options.seed)
    work = tempfile.mkdtemp(prefix="dosetap-serve-crash-")
    if options.database:
        url = options.database
        store = ["--database", url + ("&" if "?" in url else "?") + "search_path=serve_crash_" + uuid.uuid4().hex[:12]]
    else:
        store = ["--db", os.path.join(work, "crash.sqlite")]
    run = lambda *arguments: subprocess.run([options.binary, *arguments, *store, "--tz", "UTC"], check=True, capture_output=True, text=True).stdout
    run("settings", "set", "cooldown.water", "0")
    token = json.loads(run("device", "add", "crash", "--json"))["token"]
    run("dose1")
    # Served as a hosted store is: as the granted role (.ci/run's $DOSETAP_TEST_POSTGRES_ROLE) when there is one, else as
    # the schema's owner, which `serve` refuses unless told.
    serving = store
    if options.database:
        url, extra = granted(options.binary, store[1], os.environ.get("DOSETAP_TEST_POSTGRES_ROLE"))
        serving = ["--database", url, *extra]

    acknowledged = {}
    lock = threading.Lock()
    for kill in range(options.kills):
        server = subprocess.Popen([options.binary, "serve", "--port", "0", "--json", "--rate-limit", "1000000", *serving, "--tz", "UTC"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        base = json.loads(server.stdout.readline())["listening"]
        stop = threading.Event()

        def client(number):
            sequence = 0
            while not stop.is_set():
                sequence += 1
                event_id, note = str(uuid.uuid4()), f"k{kill}-c{number}-{sequence}"
                try:
                    status, body = post(base, token, {"type": "water", "id": event_id, "note": note})
                except (urllib.error.URLError, ConnectionError, OSError, ValueError):
                    return  # the server is gone: this action was not acknowledged
                if status == 200:
                    with lock:
                        acknowledged[event_id] = note

        threads = [threading.Thread(target=client, args=(number,)) for number in range(options.clients)]
        for thread in threads:
            thread.start()
        time.sleep(random.uniform(0.3, 1.5))
        server.send_signal(signal.SIGKILL)
        server.wait()
        stop.set()
        for thread in threads:
            thread.join()

    events = stored(options.binary, store)
    lost = [event_id for event_id in acknowledged if event_id not in events]
    changed = [event_id for event_id, note in acknowledged.items() if event_id in events and events[event_id] != note]
    print(f"{options.kills} kills of serve under {options.clients} concurrent clients (seed {options.seed}): "
          f"{len(acknowledged)} actions acknowledged, {len(events)} events stored")
    if lost or changed:
        raise SystemExit(f"FAIL: {len(lost)} acknowledged actions lost, {len(changed)} stored differently, e.g. {(lost + changed)[:3]}")
    if len(acknowledged) < options.kills:
        raise SystemExit("FAIL: too few actions were acknowledged for the test to mean anything")
    print("PASS: every acknowledged action is stored, whole, once")


if __name__ == "__main__":
    main()
