#!/usr/bin/env python3
"""Whether DoseTap tells anyone who its people are (issue 56): times the two requests that take any address, an
invitation (`POST /v1/shares`) and the sign-up page (`POST /signup`), for addresses with an account and without one,
alternating, and compares their answers and their times in the same run.

Usage: scripts/enumeration-timing.py DOSETAP_BINARY --database postgres://…/db [--pairs N]

It makes a throwaway schema in that database, serves it with `--sign-up domain=clinic.example.org`, mail through a
real SMTP server on loopback (scripts/smtp-peer.py) and every request from its own forwarded address, and drops the
schema afterwards. Exit 0 when, for each request, the pages are the same but for the address and the medians differ by
less than 15 % (and by less than 3 ms); 1 otherwise.
"""
import argparse, json, os, re, socket, statistics, subprocess, sys, time, urllib.error, urllib.parse, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    options = argparse.ArgumentParser()
    options.add_argument("binary")
    options.add_argument("--database", required=True)
    options.add_argument("--pairs", type=int, default=150)
    args = options.parse_args()
    schema = f"enumeration_{os.getpid()}_{int(time.time())}"
    psql = ["psql", args.database, "-qtAX", "-v", "ON_ERROR_STOP=1", "-c"]
    subprocess.run(psql + [f"CREATE SCHEMA {schema}"], check=True)
    store = args.database + ("&" if "?" in args.database else "?") + "search_path=" + schema
    env = {**os.environ, "DOSETAP_DATABASE_URL": store}

    def run(*arguments):
        return json.loads(subprocess.run([args.binary, *arguments, "--json"], env=env, capture_output=True, text=True, check=True).stdout)

    peer = server = None
    try:
        print(f"adding {args.pairs} people …", flush=True)
        for i in range(args.pairs):
            run("person", "add", f"known{i}@clinic.example.org")
        run("person", "add", "alice@example.org", "--name", "Alice")
        token = run("device", "add", "phone", "--person", "alice@example.org")["token"]
        log = os.path.join("/tmp", f"{schema}-smtp.log")
        peer = subprocess.Popen([sys.executable, os.path.join(HERE, "smtp-peer.py"), log], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        smtp = json.loads(peer.stdout.readline())["port"]
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen(
            [args.binary, "serve", "--port", str(port), "--json", "--allow-owner-role", "--sign-up", "domain=clinic.example.org",
             "--smtp", f"smtp://127.0.0.1:{smtp}", "--mail-from", "dosetap@clinic.example.org", "--trusted-proxy", "127.0.0.1/32",
             "--rate-limit", "100000"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        server.stdout.readline()
        here = f"http://127.0.0.1:{port}"

        def timed(request):
            start = time.perf_counter()
            try:
                with urllib.request.urlopen(request) as response:
                    text = response.read().decode()
            except urllib.error.HTTPError as error:
                raise SystemExit(f"{request.full_url} answered {error.code}: {error.read().decode()[:400]}")
            return (time.perf_counter() - start) * 1000, text

        def invite(address, n):
            return timed(urllib.request.Request(
                here + "/v1/shares", method="POST", data=json.dumps({"email": address, "grants": ["view"]}).encode(),
                headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"}))

        def sign_up(address, n):
            return timed(urllib.request.Request(
                here + "/signup", method="POST", data=urllib.parse.urlencode({"email": address}).encode(),
                headers={"Origin": here, "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": f"10.{n // 62500}.{n // 250 % 250}.{n % 250}"}))

        def alike(text, address):
            # The address, and the ids, tokens and instants each answer has of its own.
            text = text.replace(address, "ADDRESS")
            text = re.sub(r'"(id|invite_url|token|created_at|expires_at)":"[^"]*"', r'"\1":"…"', text)
            return re.sub(r"until [0-9-]+ [0-9:]+", "until …", text)

        failed = False
        for name, tag, ask in [("POST /v1/shares (an invitation)", "inv", invite), ("POST /signup (the sign-up page)", "sgn", sign_up)]:
            for i in range(10):
                ask(f"warm{i}-{tag}@clinic.example.org", 100000 + i)
            known, unknown, differing = [], [], 0
            for i in range(args.pairs):
                # Alternating, so whatever slows the machine slows both alike.
                a, text_a = ask(f"known{i}@clinic.example.org", 2 * i)
                b, text_b = ask(f"new{i}-{tag}@clinic.example.org", 2 * i + 1)
                known.append(a)
                unknown.append(b)
                differing += alike(text_a, f"known{i}@clinic.example.org") != alike(text_b, f"new{i}-{tag}@clinic.example.org")
            p50_known, p50_unknown = statistics.median(known), statistics.median(unknown)
            gap = abs(p50_known - p50_unknown)
            ok = differing == 0 and gap < 3 and gap / max(p50_known, p50_unknown) < 0.15
            failed |= not ok
            print(f"{name}: {args.pairs} pairs")
            print(f"  with an account:    p50 {p50_known:6.2f} ms  mean {statistics.mean(known):6.2f} ms  p90 {sorted(known)[int(len(known) * .9)]:6.2f} ms")
            print(f"  without an account: p50 {p50_unknown:6.2f} ms  mean {statistics.mean(unknown):6.2f} ms  p90 {sorted(unknown)[int(len(unknown) * .9)]:6.2f} ms")
            print(f"  answers that differ but for the address: {differing}; medians {gap:.2f} ms apart → {'alike' if ok else 'NOT ALIKE'}")
        return 1 if failed else 0
    finally:
        if server:
            server.terminate()
            server.wait()
        if peer:
            peer.stdin.close()
            peer.wait()
        subprocess.run(psql + [f"DROP SCHEMA {schema} CASCADE"], check=False, capture_output=True)


if __name__ == "__main__":
    sys.exit(main())
