#!/usr/bin/env python3
"""How fast /health answers while 300 half-sent requests press on `dosetap serve` (issue 10's aim: under 100 ms
throughout), measured alone on the machine rather than beside the test suites.

The same server is probed in the same run twice: first with nothing held (the baseline), then while 300 connections
hold a request half-sent (half inside the headers, half inside a promised body) until the server's 2 s header and
3 s body timeouts close them. Each probe is a new connection's GET /health. It prints both sets of figures and
compares the held run's slowest probe with the aim.

Usage: scripts/slow-clients.py [BINARY]   (default: the static release build, built if missing)
"""
import json
import os
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import time

AIM_MS = 100.0
HELD = 300


def build_release() -> str:
    flags = ["-c", "release", "--static-swift-stdlib", "--scratch-path", ".build-static"]
    subprocess.run(["swift", "build", *flags, "--product", "dosetap"], check=True, stdout=subprocess.DEVNULL)
    path = subprocess.run(["swift", "build", *flags, "--show-bin-path"], check=True, capture_output=True, text=True)
    return os.path.join(path.stdout.strip(), "dosetap")


def probe(port: int) -> float:
    """Milliseconds for one GET /health on a new connection."""
    start = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := connection.recv(4096):
            answer += chunk
    if not answer.startswith(b"HTTP/1.1 200"):
        raise SystemExit(f"/health answered {answer[:40]!r}")
    return (time.perf_counter() - start) * 1000


def summary(name: str, timings: list[float]) -> str:
    ordered = sorted(timings)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"{name:34} {len(timings):4} probes   p50 {statistics.median(ordered):6.2f} ms   "
            f"p99 {p99:6.2f} ms   max {ordered[-1]:6.2f} ms")


def main() -> int:
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    binary = sys.argv[1] if len(sys.argv) > 1 else build_release()
    with tempfile.TemporaryDirectory() as work:
        database = os.path.join(work, "slow.sqlite")
        server = subprocess.Popen(
            [binary, "serve", "--db", database, "--tz", "UTC", "--port", "0", "--json",
             "--header-timeout", "2", "--body-timeout", "3"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            port = json.loads(server.stdout.readline())["port"]
            for _ in range(20):  # warm-up
                probe(port)
            baseline = [probe(port) for _ in range(100)]

            held = []
            for index in range(HELD):
                connection = socket.create_connection(("127.0.0.1", port), timeout=10)
                connection.sendall(
                    b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " if index % 2 == 0 else
                    b"POST /v1/events/log HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100\r\n\r\n{\"ty")
                held.append(connection)
            started = time.perf_counter()
            behind_burst = probe(port)  # waits behind the 300 connects in the listen queue
            timings, still_open = [], list(held)
            while still_open and time.perf_counter() - started < 8:
                readable, _, _ = select.select(still_open, [], [], 0.05)
                for connection in readable:
                    if connection.recv(4096) == b"":
                        still_open.remove(connection)
                        connection.close()
                timings.append(probe(port))
            closed_after = time.perf_counter() - started
        finally:
            server.terminate()
            server.wait(timeout=20)

    print(f"dosetap serve ({binary}), loopback, {HELD} half-sent requests, header timeout 2 s, body timeout 3 s")
    print(summary("GET /health, nothing held", baseline))
    print(summary("GET /health, 300 held", timings))
    print(f"first probe behind the burst of connects: {behind_burst:.1f} ms")
    slowest = max(timings)
    passed = not still_open and slowest < AIM_MS
    print(f"{'PASS' if not still_open else 'MISS'} all {HELD} closed by the server after {closed_after:.1f} s "
          f"({len(still_open)} still open)")
    print(f"{'PASS' if slowest < AIM_MS else 'MISS'} slowest /health while they were held: {slowest:.1f} ms "
          f"(aim < {AIM_MS:.0f} ms; nothing held: max {max(baseline):.1f} ms)")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
