"""The half-asleep double tap at every control of every phase of Tonight (sweep.py): the CI form here, the full form with
`--sweep full` (scripts/tap-sweep.sh). The matrix is printed and written beside the screenshots as tap-sweep.md."""
import os

import pytest

import scenarios
import sweep


def test_tap_sweep(binary, work, out, store, request):
    if store:
        pytest.skip("the person's sweep runs on copies of SQLite stores; the caregiver's runs on PostgreSQL (test_people.py)")
    full = request.config.getoption("--sweep") == "full"
    only = request.config.getoption("--sweep-only")
    lines = []
    rows, failures = sweep.sweep(binary, work, full=full, workers=int(request.config.getoption("--sweep-workers")),
                                 only=only.split(",") if only else None, report=lines.append)
    print("\n".join(lines))
    with open(os.path.join(out, "tap-sweep.md"), "w") as file:
        file.write("\n".join(lines) + "\n")
    scenarios.check(rows and not failures, f"every double tap did what one tap does ({len(failures)} failed)")
    for failure in failures[:60]:
        scenarios.check(False, failure)
