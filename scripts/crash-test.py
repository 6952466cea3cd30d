#!/usr/bin/env python3
"""Crash test: SIGKILL `dosetap` at random moments during 1,000 logged actions, 100 times.

Every action the binary acknowledged (exit 0 and a JSON event with an id on stdout) must be in the
database afterwards, every stored row must be whole, and PRAGMA integrity_check must say ok.

With --database postgres://…, the same on PostgreSQL (in a schema of its own, read back with psql): the client is
killed mid-transaction, and every acknowledged action must be there, whole.

Usage: scripts/crash-test.py [path/to/dosetap] [--actions 1000] [--kills 100] [--seed N] [--database URL]
"""
import argparse, datetime, json, os, random, signal, sqlite3, statistics, subprocess, sys, tempfile, time

EVENTS = ["dream", "anxiety", "noise", "wake_temp", "in_bed", "lights_out", "temperature", "pain", "heart_racing"]
START = datetime.datetime(2026, 11, 21, 23, 0, 0, tzinfo=datetime.timezone.utc)


def command(binary, store, index):
    at = START + datetime.timedelta(seconds=index)
    return [binary, "log", EVENTS[index % len(EVENTS)], "--note", f"a-{index}", *store, "--tz", "UTC",
            "--json", "--now", at.strftime("%Y-%m-%dT%H:%M:%S.000Z")]


def sqlite_rows(database):
    connection = sqlite3.connect(database)
    integrity = connection.execute("PRAGMA integrity_check").fetchone()[0]
    rows = {row[0]: row[1:] for row in connection.execute("SELECT id, note, occurred_at, event_type FROM sleep_events")}
    return integrity, rows


def postgres_rows(url, schema):
    query = f"SELECT id, note, {schema}.dosetap_instant(occurred_at), event_type FROM {schema}.sleep_events"
    out = subprocess.run(["psql", url, "-At", "-F", "\t", "-c", query], check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        event_id, note, occurred_at, event_type = line.split("\t")
        rows[event_id] = (note, occurred_at, event_type)
    # PostgreSQL's own guarantee stands in for integrity_check: a committed transaction is whole or absent.
    return "ok", rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default=".build/debug/dosetap")
    parser.add_argument("--actions", type=int, default=1000)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--database", help="a postgres:// URL: run against PostgreSQL instead of a SQLite file")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    workdir = tempfile.mkdtemp(prefix="dosetap-crash-")
    database = os.path.join(workdir, "crash.sqlite")
    schema = f"crash_{args.seed}_{os.getpid()}"
    if args.database:
        store = ["--database", args.database + ("&" if "?" in args.database else "?") + f"search_path={schema}"]
    else:
        store = ["--db", database]
    kill_at = set(rng.sample(range(10, args.actions), args.kills))
    acknowledged, killed, durations, failures = {}, 0, [], []

    for index in range(args.actions):
        started = time.monotonic()
        process = subprocess.Popen(command(args.binary, store, index), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if index in kill_at:
            # A random moment inside a typical run: opening, deciding, committing or printing.
            typical = statistics.median(durations) if durations else 0.05
            time.sleep(rng.uniform(0, typical * 1.1))
            process.send_signal(signal.SIGKILL)
        out, err = process.communicate()
        if process.returncode == -signal.SIGKILL:
            killed += 1
            continue
        if index not in kill_at:
            durations.append(time.monotonic() - started)
        if process.returncode != 0:
            failures.append((index, process.returncode, out.decode()[:300], err.decode()[:300]))
            continue
        event = json.loads(out)
        acknowledged[event["id"]] = index

    integrity, rows = postgres_rows(args.database, schema) if args.database else sqlite_rows(database)
    missing = [i for i in acknowledged if i not in rows]
    torn = []
    for event_id, (note, occurred_at, event_type) in rows.items():
        index = int(note.split("-")[1])
        expected = (START + datetime.timedelta(seconds=index)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        if occurred_at != expected or event_type != EVENTS[index % len(EVENTS)]:
            torn.append(event_id)

    print(f"store: {'PostgreSQL' if args.database else 'SQLite'}")
    print(f"seed {args.seed}: {args.actions} actions, {len(kill_at)} kill attempts, {killed} processes killed mid-run")
    print(f"acknowledged {len(acknowledged)}, stored {len(rows)} (committed but killed before acknowledging: {len(rows) - len(acknowledged) + len(missing)})")
    print(f"missing acknowledged: {len(missing)}, malformed rows: {len(torn)}, other failures: {len(failures)}, integrity_check: {integrity}")
    for failure in failures[:5]:
        print("failure:", failure)
    ok = integrity == "ok" and not missing and not torn and not failures and killed > 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
