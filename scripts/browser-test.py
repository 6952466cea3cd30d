#!/usr/bin/env python3
"""Real-browser test of the web UI with Debian's chromium and chromium-driver through selenium, at 390×844.

The scenarios live in scripts/browser/ (scenarios.py, and one pytest test per scenario in the test_*.py modules); each
runs alone with a fresh Chromium and fails alone. This runs them all, or one part, and keeps the command CI and the
README have always used. Every page is screenshot, checked by axe-core (no serious or critical violation) and for
contrast (text ≥ 4.5:1, actions and timer ≥ 7:1), and must fit the screen.
Usage: scripts/browser-test.py [path/to/dosetap] [--out DIR] [--only PART] [--database-url URL] [-- PYTEST ARGS]
One scenario alone: python3 -m pytest scripts/browser -k double_tap --binary .build/debug/dosetap
"""
import argparse
import os
import subprocess
import sys

PARTS = {
    "live": ["test_night.py::test_live_night"],
    "night": ["test_offline.py", "test_night.py::test_midnight_checkin", "test_night.py::test_late_night"],
    "insights": ["test_records.py::test_insights_and_report"],
    "history": ["test_records.py::test_deleting_nights"],
    "sleep": ["test_records.py::test_sleep_details"],
    "people": ["test_people.py"],
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default=".build/debug/dosetap")
    parser.add_argument("--out", default=None)
    parser.add_argument("--only", choices=sorted(PARTS), help="run one part only")
    parser.add_argument("--database-url", help="run every command on PostgreSQL: each --db PATH becomes a schema of its own at this URL")
    args, extra = parser.parse_known_args()
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser")
    targets = [os.path.join(here, part) for part in PARTS[args.only]] if args.only else [here]
    # -s: every check prints its ok/FAIL line as it runs, as the night is walked.
    command = [sys.executable, "-m", "pytest", "-s", "-p", "no:cacheprovider", "--binary", args.binary, *targets]
    if args.out:
        command += ["--out", args.out]
    if args.database_url:
        command += ["--database-url", args.database_url]
    result = subprocess.call(command + [arg for arg in extra if arg != "--"])
    print("PASS" if result == 0 else "FAIL")
    return result


if __name__ == "__main__":
    sys.exit(main())
