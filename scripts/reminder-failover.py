#!/usr/bin/env python3
"""Several `dosetap serve` instances on one PostgreSQL store, one killed mid-run: every reminder arrives exactly once,
within 10 s of its time (issue 36).

Dozens of people each get a Dose 1 recorded so that one of their night's reminders (the window opening, the wake alarm,
a follow-up, a countdown warning, the window's close ...) falls due in the next minute or two, on the real clock. Every
instance sends to one webhook sink, which records each arrival with its `Idempotency-Key`. Partway through, one
instance is killed with SIGKILL (it holds leases, and may be mid-delivery); the others must take its work over.

Checked afterwards:
  - every reminder each person's plan (`GET /v1/reminders`) has due during the run arrived, exactly once (by occurrence);
  - none arrived twice, nor any that no plan has;
  - each arrived within 10 s of its time (prints p50, p99 and the worst);
  - the store's jobs are all done (none pending or held) and each reminder is logged once.

Usage: scripts/reminder-failover.py path/to/dosetap postgres://OWNER@127.0.0.1:PORT/DATABASE
           [--instances 3] [--people 36] [--kill-after 45] [--role dosetap_app]
With --role (default $DOSETAP_TEST_POSTGRES_ROLE), the schema's owner grants the role and the instances serve as it.
"""
import argparse, json, os, signal, subprocess, sys, time, urllib.request

from hosted_night import Sink, check, check_arrivals, cpu_seconds, iso, night_zone, owner_serving, parse, people_ids, start_instances, throwaway_store, verdict, wind_up


class RefusingSink(Sink):
    """From the kill's moment, each of the next three occurrences' first attempt is answered 503, so the instance that
    sent it holds its lease through the retry's wait, and is killed then."""
    refused = set()
    refusing_from = float("inf")

    def refuse(self, key):
        if time.time() < RefusingSink.refusing_from or key in RefusingSink.refused or len(RefusingSink.refused) >= 3:
            return False
        RefusingSink.refused.add(key)
        return True


def request(base, path, token):
    req = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=30) as response:
        return json.loads(response.read())


def main():
    options = argparse.ArgumentParser()
    options.add_argument("binary")
    options.add_argument("url")
    options.add_argument("--instances", type=int, default=3)
    options.add_argument("--people", type=int, default=36)
    options.add_argument("--kill-after", type=float, default=45, help="seconds after the first reminder is due")
    options.add_argument("--role", default=os.environ.get("DOSETAP_TEST_POSTGRES_ROLE"))
    options.add_argument("--keep", action="store_true", help="keep the schema afterwards, to look into it")
    args = options.parse_args()

    schema, owner_store, serving = throwaway_store(args.binary, args.url, args.role, "failover")
    owner_env = {**os.environ, "DOSETAP_DATABASE_URL": owner_store}
    env = {**os.environ, "DOSETAP_DATABASE_URL": serving}
    sink, hook = Sink.start(RefusingSink)

    def cli(*words):
        done = subprocess.run([args.binary, *words, "--json"], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"dosetap {' '.join(words)}: {done.stderr.strip()}")
        return json.loads(done.stdout) if done.stdout.strip() else None

    zone = night_zone()
    people = [f"p{index:03d}@example.org" for index in range(args.people)]
    tokens = {}
    for email in people:
        cli("person", "add", email, "--time-zone", zone)
        tokens[email] = cli("device", "add", "failover", "--person", email)["token"]

    instances = []
    try:
        start_instances(args.binary, args.instances, env, hook, instances, owner_serving(args.role))
        print(f"{args.instances} instances serving {args.people} people in {zone}; sink at {hook}", flush=True)

        # Person i's reminder at minute m_i of the night falls due `lead + i * spread` seconds from now.
        minutes = [150, 160, 165, 167, 169, 171, 210, 225, 235, 238, 239.5, 240]
        lead, spread = 25.0, 60.0 / max(1, args.people)
        start = time.time()
        for index, email in enumerate(people):
            due = start + lead + index * spread
            cli("dose1", "--person", email, "--at", iso(due - minutes[index % len(minutes)] * 60))
        recorded = time.time()
        plans = {}
        for email in people:
            plan = request(instances[0][1], "/v1/reminders", tokens[email])
            plans[email] = [(item["kind"], parse(item["fire_at"])) for item in plan["reminders"]]
        # Reminders due from a few seconds after the last Dose 1 was recorded (earlier ones went out, or were missed,
        # when their Dose 1 was recorded) to the end of the run.
        first_due = start + lead
        last_due = start + lead + args.people * spread
        expected = {}
        for email, plan in plans.items():
            for kind, fire in plan:
                if recorded + 3 <= fire <= last_due + 1:
                    expected[(email, kind, round(fire, 3))] = fire
        # Just after a reminder falls due, when an instance is likeliest to hold a lease mid-delivery.
        kill_at = min((fire for fire in expected.values() if fire >= first_due + args.kill_after), default=first_due + args.kill_after) + 0.15
        check(len(expected) >= args.people, f"{len(expected)} reminders fall due during the run, at least one for each person")

        # CPU per instance: idle (every plan written, nothing due yet) and through the run.
        idle_from = {server.pid: cpu_seconds(server.pid) for server, _ in instances}
        idle_start = time.time()
        time.sleep(max(0, min(5, first_due - 1 - time.time())))
        idle_span = time.time() - idle_start
        idle = {pid: (cpu_seconds(pid) - used) / idle_span for pid, used in idle_from.items() if idle_span > 0.5 and used is not None}
        busy_from = {server.pid: cpu_seconds(server.pid) for server, _ in instances}
        busy_start, busy = time.time(), {}
        # From the kill's moment the sink refuses the next occurrences once; the instance retrying one (holding its
        # lease, mid-delivery) is the one killed.
        RefusingSink.refusing_from = kill_at - 0.3
        killed = None
        pids = {server.pid: server for server, _ in instances}
        while time.time() < last_due + 20:
            if killed is None and time.time() >= kill_at:
                holders = subprocess.run(["psql", args.url, "-At", "-c", f"SET search_path = {schema}; SELECT DISTINCT lease_owner FROM "
                                          "reminder_jobs WHERE state = 'sending' AND lease_owner IS NOT NULL"],
                                         capture_output=True, text=True).stdout.split()[1:]
                owners = [pids.get(int(holder.split("/")[1])) for holder in holders if holder.count("/") == 2]
                owners = [owner for owner in owners if owner is not None]
                if owners or time.time() >= kill_at + 5:
                    killed = owners[0] if owners else instances[1 % len(instances)][0]
                    killed.send_signal(signal.SIGKILL)
                    killed.wait()
                    print(f"killed instance {killed.pid} at {time.time() - first_due:.1f} s into the run"
                          f" ({'while it held a lease mid-delivery' if owners else 'holding no lease'})", flush=True)
            time.sleep(0.1)
            if time.time() >= last_due and busy_start:
                busy = {pid: (cpu_seconds(pid) - used) / (time.time() - busy_start) for pid, used in busy_from.items()
                        if pids[pid].poll() is None and used is not None}
                busy_start = None
        check(killed is not None, "one instance was killed mid-run")
        print("CPU per instance, idle: " + ", ".join(f"{share * 100:.1f}%" for share in idle.values())
              + "; through the run: " + ", ".join(f"{share * 100:.1f}%" for share in busy.values()), flush=True)

        directory = people_ids(args.binary, owner_env)
        check_arrivals(Sink.accepted(), {(directory.get(email), kind, fire): instant for (email, kind, fire), instant in expected.items()}, first_due)
        jobs = subprocess.run(["psql", args.url, "-At", "-c",
                               f"SET search_path = {schema}; SELECT state, count(*) FROM reminder_jobs WHERE fire_at <= now() - interval '15 seconds'"
                               " GROUP BY state ORDER BY state; SELECT count(*) FROM reminder_jobs WHERE lease_owner IS NOT NULL"
                               " AND fire_at <= now() - interval '15 seconds';"
                               " SELECT count(*) FROM (SELECT session_id, kind, fire_at FROM reminder_log GROUP BY 1, 2, 3 HAVING count(*) > 1) AS d;"
                               " SELECT count(*) FROM reminder_jobs WHERE claims > 1"],
                              capture_output=True, text=True).stdout.split()
        taken_over = jobs.pop()
        print(f"jobs due by now, by state: {', '.join(jobs[1:-2])}; claimed more than once (taken over): {taken_over}", flush=True)
        check(int(taken_over) >= 1, "the killed instance's delivery was taken over by another")
        check(not any(line.startswith("pending|") or line.startswith("sending|") for line in jobs[:-2]), "no job due by now is left undone")
        check(jobs[-2:] == ["0", "0"], f"no lease is left held on a done job, and no reminder is logged twice: {jobs[-2:]}")
    finally:
        wind_up([server for server, _ in instances], args.url, schema, args.keep, sink)
    return verdict()


if __name__ == "__main__":
    sys.exit(main())
