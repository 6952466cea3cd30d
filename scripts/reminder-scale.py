#!/usr/bin/env python3
"""Reminders at scale on a shared PostgreSQL store: thousands of people, several `dosetap serve` instances, one killed
mid-run; every reminder due in the run arrives exactly once, and how late (issue 36, item 4).

Set-up, in bulk: the people, their time zone and one paired device each are written with one SQL statement each (as
the database's superuser, the way an operator would load a directory), and then each person's Dose 1 is recorded
through the API of the running instances, as a phone would, so every plan is made by DoseTap itself. Dose 1 times
are spread so that the people's windows open evenly through the run: each night's reminders from the window's opening
to the run's end fall due during it.

Every instance sends to one webhook sink, which records each arrival with its `Idempotency-Key`. Halfway through, one
instance is killed with SIGKILL.

Checked and printed afterwards:
  - every reminder the plans (`GET /v1/reminders`, each person's) have due during the run arrived exactly once;
  - none arrived before its time; lateness p50, p99 and the worst (aim: p99 under 2 s);
  - CPU per instance while idle (every plan written, nothing due), at the busiest minute, and the database's;
  - no job due is left pending or held, no reminder is logged twice.

Usage: scripts/reminder-scale.py path/to/dosetap postgres://SUPERUSER@127.0.0.1:PORT/DATABASE
           [--people 10000] [--minutes 60] [--instances 3] [--role dosetap_app] [--keep]
"""
import argparse, concurrent.futures, hashlib, json, os, signal, subprocess, sys, time, urllib.request

from hosted_night import Sink, check, check_arrivals, cpu_seconds, iso, night_zone, owner_serving, parse, start_instances, throwaway_store, verdict, wind_up

WINDOW_OPENS = 150 * 60


def token(index):
    return "dtp_" + hashlib.sha256(f"scale-{index}".encode()).hexdigest()


def call(base, path, index, body=None):
    data = None if body is None else json.dumps(body).encode()
    headers = {"Authorization": f"Bearer {token(index)}", "Content-Type": "application/json"}
    req = urllib.request.Request(base + path, data=data, headers=headers, method="POST" if body is not None else "GET")
    for attempt in range(5):
        try:
            with urllib.request.urlopen(req, timeout=60) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            if error.code not in (429, 503) or attempt == 4:
                raise SystemExit(f"{path} for person {index}: {error.code} {error.read()[:300]!r}")
            time.sleep(1 + attempt)


def psql(url, schema, sql):
    done = subprocess.run(["psql", url, "-At", "-v", "ON_ERROR_STOP=1", "-c", f"SET search_path = {schema}; {sql}"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"psql: {done.stderr.strip()}")
    return done.stdout.split("\n")[1:]


def postgres_cpu():
    """CPU seconds used by every PostgreSQL process of this machine."""
    total = 0.0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if open(f"/proc/{pid}/comm").read().strip() == "postgres":
                    total += cpu_seconds(int(pid)) or 0
            except OSError:
                pass
    return total


def main():
    options = argparse.ArgumentParser()
    options.add_argument("binary")
    options.add_argument("url", help="a superuser's URL: the bulk set-up writes every person's rows at once")
    options.add_argument("--people", type=int, default=10_000)
    options.add_argument("--minutes", type=float, default=60)
    options.add_argument("--instances", type=int, default=3)
    options.add_argument("--role", default=os.environ.get("DOSETAP_TEST_POSTGRES_ROLE"))
    options.add_argument("--keep", action="store_true", help="keep the schema afterwards, to look into it")
    args = options.parse_args()

    schema, owner_store, serving = throwaway_store(args.binary, args.url, args.role, "scale")
    env = {**os.environ, "DOSETAP_DATABASE_URL": serving}
    sink, hook = Sink.start(Sink)
    zone = night_zone()
    n = args.people

    # The store is made by the first instance's migration; its rows are loaded before anyone is served.
    subprocess.run([args.binary, "person", "list", "--json"], env={**os.environ, "DOSETAP_DATABASE_URL": owner_store},
                   check=True, capture_output=True)
    began = time.time()
    psql(args.url, schema, f"""
        INSERT INTO people (id, created_at, email) SELECT 'scale-' || i, now(), 'p' || i || '@example.org' FROM generate_series(0, {n - 1}) AS i;
        INSERT INTO settings (person_id, key, value, updated_at) SELECT id, 'time_zone', '{zone}', now() FROM people;
        INSERT INTO devices (id, person_id, name, token_hash, created_at)
            SELECT 'dev-' || i, 'scale-' || i, 'scale', encode(sha256(('dtp_' || encode(sha256(('scale-' || i)::bytea), 'hex'))::bytea), 'hex'), now()
            FROM generate_series(0, {n - 1}) AS i;
        ANALYZE people; ANALYZE settings; ANALYZE devices;""")
    print(f"{n} people, their zone ({zone}) and devices written in {time.time() - began:.1f} s", flush=True)

    instances = []
    try:
        start_instances(args.binary, args.instances, env, hook, instances, owner_serving(args.role))
        bases = [base for _, base in instances]

        # The run: windows open evenly from `start` over `minutes`; Dose 1 for person i at its window's opening less
        # 150 minutes. The set-up below must finish before `start`, so it begins a generous while from now.
        setup_allowance = 60 + n * 0.05
        start = time.time() + setup_allowance
        span = args.minutes * 60
        end = start + span
        dose1 = [start + span * i / n - WINDOW_OPENS for i in range(n)]
        began = time.time()
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda i: call(bases[i % len(bases)], "/v1/doses/take", i, {"type": "dose1", "timestamp": iso(dose1[i])}), range(n)))
        recorded = time.time()
        print(f"{n} Dose 1s recorded through the API in {recorded - began:.1f} s", flush=True)
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            plans = list(pool.map(lambda i: call(bases[i % len(bases)], "/v1/reminders", i), range(n)))
        expected = {}
        for i, plan in enumerate(plans):
            for item in plan["reminders"]:
                fire = parse(item["fire_at"])
                if max(start, recorded + 3) <= fire <= end:
                    expected[(f"scale-{i}", item["kind"], round(fire, 3))] = fire
        check(recorded + 3 <= start, f"the set-up ended {start - recorded:.0f} s before the run")
        print(f"{len(expected)} reminders fall due in the {args.minutes:g}-minute run", flush=True)

        # CPU while idle: every plan written, nothing due yet.
        pids = {server.pid: server for server, _ in instances}
        idle_from = {pid: cpu_seconds(pid) for pid in pids}
        idle_db, idle_start = postgres_cpu(), time.time()
        time.sleep(max(1, min(20, start - time.time() - 1)))
        idle_span = time.time() - idle_start
        idle = [(cpu_seconds(pid) - used) / idle_span for pid, used in idle_from.items()]
        idle_db = (postgres_cpu() - idle_db) / idle_span

        # Through the run: CPU per instance per minute, and one instance killed halfway.
        kill_at, killed = start + span / 2, None
        minute_marks = [(time.time(), {pid: cpu_seconds(pid) for pid in pids}, postgres_cpu())]
        while time.time() < end + 15:
            time.sleep(1)
            if killed is None and time.time() >= kill_at:
                # Killed between deliveries, holding leases on work to come: a kill after the sink took a reminder and
                # before the instance recorded it can only be answered by the same Idempotency-Key on a second arrival,
                # which this count would call twice; reminder-failover.py kills mid-delivery, where once is promised.
                victim = instances[1 % len(instances)][0]
                deadline = time.time() + 5
                while time.time() < deadline and str(victim.pid) in " ".join(psql(args.url, schema,
                        "SELECT DISTINCT lease_owner FROM reminder_jobs WHERE state = 'sending' AND lease_owner IS NOT NULL")).split("/"):
                    time.sleep(0.01)
                killed = victim
                killed.send_signal(signal.SIGKILL)
                killed.wait()
                print(f"killed instance {killed.pid} {time.time() - start:.0f} s into the run", flush=True)
            if time.time() - minute_marks[-1][0] >= 60:
                minute_marks.append((time.time(), {pid: cpu_seconds(pid) for pid in pids if pids[pid].poll() is None}, postgres_cpu()))
        minutes = []
        for (t0, cpu0, db0), (t1, cpu1, db1) in zip(minute_marks, minute_marks[1:]):
            shares = [(cpu1[pid] - cpu0[pid]) / (t1 - t0) for pid in cpu1 if pid in cpu0 and cpu1[pid] is not None]
            minutes.append((t0, shares, max(0.0, (db1 - db0) / (t1 - t0))))

        received = Sink.accepted()
        per_minute = {}
        for arrived, _, _ in received:
            per_minute[int((arrived - start) // 60)] = per_minute.get(int((arrived - start) // 60), 0) + 1
        busiest = max(per_minute, key=per_minute.get) if per_minute else 0
        busiest_cpu = next((m for m in minutes if int((m[0] - start) // 60) == busiest), None)
        print(f"CPU per instance, idle: {', '.join(f'{s * 100:.1f}%' for s in idle)}; PostgreSQL {idle_db * 100:.1f}%", flush=True)
        if busiest_cpu:
            print(f"busiest minute ({per_minute[busiest]} arrivals, minute {busiest}): per instance "
                  f"{', '.join(f'{s * 100:.1f}%' for s in busiest_cpu[1])}; PostgreSQL {busiest_cpu[2] * 100:.1f}%", flush=True)
        if minutes:
            print("per instance over the run, each minute's highest: "
                  + ", ".join(f"{max(shares) * 100:.0f}%" for _, shares, _ in minutes if shares), flush=True)

        ordered = check_arrivals(received, expected, start)
        if ordered:
            p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
            print(f"p99 under 2 s (the issue's aim): {'yes' if p99 < 2 else 'no'}", flush=True)
        states = psql(args.url, schema, f"SELECT state || ' ' || count(*) FROM reminder_jobs WHERE fire_at <= '{iso(end)}' GROUP BY state ORDER BY state")
        twice_logged = psql(args.url, schema, "SELECT count(*) FROM (SELECT 1 FROM reminder_log GROUP BY session_id, kind, fire_at HAVING count(*) > 1) AS d")
        taken_over = psql(args.url, schema, "SELECT count(*) FROM reminder_jobs WHERE claims > 1")
        print(f"jobs due by the end, by state: {', '.join(line for line in states if line)}; taken over: {taken_over[0]}", flush=True)
        check(not any(line.startswith(("pending", "sending")) for line in states), "no job due by the end is left undone")
        check(twice_logged[0] == "0", "no reminder is logged twice")
    finally:
        wind_up([server for server, _ in instances], args.url, schema, args.keep, sink)
    return verdict()


if __name__ == "__main__":
    sys.exit(main())
