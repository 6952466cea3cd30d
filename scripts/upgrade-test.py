#!/usr/bin/env python3
"""A rolling upgrade on one PostgreSQL store, old and new binary serving it at once: no reminder lost (issue 36).

The steps of docs/DEPLOY.md, on the real clock:
  1. the OLD binary makes the store, records each person's Dose 1 so that their reminders fall due all through the
     upgrade, and serves it (one instance);
  2. the NEW binary's `store grant` applies its migrations while the old instance runs; the old instance still
     answers, records an action and reads it back (the migrations are backward compatible for one version);
  3. a NEW instance starts beside the old one; then the old one is stopped (SIGTERM), as a rolling restart does;
  4. afterwards: every reminder due from the start to the end arrived at the webhook sink, each within 10 s of its
     time; none twice once the old instance stopped (while both ran, an old instance fires its reminders itself, so one
     due in that overlap may arrive twice, never not at all; the count is printed); what the old binary recorded is
     all there, read by the new binary.

Usage: scripts/upgrade-test.py OLD_DOSETAP NEW_DOSETAP postgres://OWNER@127.0.0.1:PORT/DATABASE [--role dosetap_app]
"""
import argparse, json, os, signal, subprocess, sys, time, urllib.error, urllib.request

from hosted_night import Sink, check, drop, iso, night_zone, owner_serving, parse, people_ids, stop, throwaway_store, verdict

def request(base, path, token, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def main():
    options = argparse.ArgumentParser()
    options.add_argument("old")
    options.add_argument("new")
    options.add_argument("url")
    options.add_argument("--people", type=int, default=12)
    options.add_argument("--role", default=os.environ.get("DOSETAP_TEST_POSTGRES_ROLE"))
    args = options.parse_args()

    schema, owner_store, serving = throwaway_store(args.old, args.url, args.role, "upgrade")
    env = {**os.environ, "DOSETAP_DATABASE_URL": serving}
    sink, hook = Sink.start(Sink)

    def cli(binary, *words):
        done = subprocess.run([binary, *words, "--json"], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{binary} {' '.join(words)}: {done.stdout.strip()} {done.stderr.strip()}")
        return json.loads(done.stdout) if done.stdout.strip() else None

    def serve(binary):
        # The previous release only warned about serving as the owner; this one needs to be told.
        extra = owner_serving(args.role) if binary == args.new else []
        server = subprocess.Popen([binary, "serve", "--port", "0", "--json", "--webhook", hook, *extra], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        return server, json.loads(server.stdout.readline())["listening"]

    zone = night_zone()
    people = [f"u{index:02d}@example.org" for index in range(args.people)]
    tokens = {}
    for email in people:
        cli(args.old, "person", "add", email, "--time-zone", zone)
        tokens[email] = cli(args.old, "device", "add", "upgrade", "--person", email)["token"]
    old_server, old_base = serve(args.old)
    instances = [old_server]
    try:
        # Person i's next reminder falls due `10 + i * spacing` seconds from now: before, during and after the upgrade.
        spacing = 80.0 / args.people
        start = time.time()
        minutes = [150, 165, 167, 210, 225, 240]
        for index, email in enumerate(people):
            cli(args.old, "dose1", "--person", email, "--at", iso(start + 12 + index * spacing - minutes[index % len(minutes)] * 60))
        recorded = time.time()
        plans = {email: request(old_base, "/v1/reminders", tokens[email])[1]["reminders"] for email in people}
        end = start + 12 + args.people * spacing

        time.sleep(max(0, start + 25 - time.time()))
        migrated = subprocess.run([args.new, "store", "grant", args.role or "", "--database", owner_store], capture_output=True, text=True) \
            if args.role else subprocess.run([args.new, "status", "--database", serving, "--person", people[0]], capture_output=True, text=True)
        check(migrated.returncode == 0, f"the new binary applied its migrations while the old instance ran: {migrated.stderr.strip()[:200]}")
        status, body = request(old_base, "/v1/status", tokens[people[0]])
        check(status == 200, f"the old instance answers after the migration: {status}")
        status, body = request(old_base, "/v1/events/log", tokens[people[1]], {"type": "water"})
        check(status == 200, f"the old instance records an action after the migration: {status} {str(body)[:160]}")

        time.sleep(max(0, start + 35 - time.time()))
        new_server, new_base = serve(args.new)
        instances.append(new_server)
        both_from = time.time()
        time.sleep(max(0, start + 55 - time.time()))
        old_server.send_signal(signal.SIGTERM)
        old_server.wait(20)
        both_until = time.time()
        print(f"old and new served together from {both_from - start:.1f} s to {both_until - start:.1f} s", flush=True)
        status, _ = request(new_base, "/v1/status", tokens[people[1]])
        check(status == 200, f"the new instance answers: {status}")
        time.sleep(max(0, end + 15 - time.time()))

        ids = people_ids(args.new, env)
        arrivals = {}
        for arrived, _, body in Sink.accepted():
            arrivals.setdefault((body.get("person_id"), body["kind"], round(parse(body["fire_at"]), 3)), []).append(arrived)
        missing, late, twice_outside, twice_overlap, count = [], [], [], 0, 0
        for email, plan in plans.items():
            for item in plan:
                fire = parse(item["fire_at"])
                if not (recorded + 3 <= fire <= end + 1):
                    continue
                count += 1
                copies = sorted(arrivals.get((ids.get(email), item["kind"], round(fire, 3)), []))
                if not copies:
                    missing.append(f"{email} {item['kind']} {item['fire_at']}")
                    continue
                if copies[0] - fire > 10:
                    late.append(f"{email} {item['kind']} {copies[0] - fire:.1f} s")
                if len(copies) > 1:
                    if both_from - 1 <= fire <= both_until + 1:
                        twice_overlap += 1
                    else:
                        twice_outside.append(f"{email} {item['kind']}")
        check(count >= args.people, f"{count} reminders fell due during the upgrade")
        check(not missing, f"none lost: {count - len(missing)} of {count} arrived; missing {missing[:5]}")
        check(not late, f"each within 10 s of its time: late {late[:5]}")
        check(not twice_outside, f"none twice outside the overlap: {twice_outside[:5]}")
        print(f"     due while both ran and sent by both (the old version fires its own): {twice_overlap}", flush=True)
        # What the old binary recorded (each Dose 1, the water logged through the old instance after the migration) is
        # there, read by the new binary.
        read = [subprocess.run([args.new, "status", "--json", "--person", email], env=env, capture_output=True, text=True) for email in people]
        check(all(done.returncode == 0 and json.loads(done.stdout).get("phase") not in (None, "no_dose1") for done in read),
              "every night the old binary began is there, read by the new binary")
        history = subprocess.run([args.new, "history", "--json", "--person", people[1]], env=env, capture_output=True, text=True)
        check(history.returncode == 0 and '"water"' in history.stdout, "the event the old instance logged after the migration is there")
    finally:
        stop(instances)
        drop(args.url, schema)
        sink.shutdown()
    return verdict()


if __name__ == "__main__":
    sys.exit(main())
