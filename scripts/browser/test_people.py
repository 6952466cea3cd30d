"""People of a shared PostgreSQL store in the browser (run with --database-url; skipped on a SQLite file)."""
import pytest

import scenarios


def test_sign_in(driver, wait, binary, work, out, store):
    if not store:
        pytest.skip("sign-in links need a PostgreSQL store: run with --database-url")
    scenarios.sign_in(driver, wait, binary, work, out, store)


def test_invitation(driver, wait, binary, work, out, store):
    if not store:
        pytest.skip("sharing needs a PostgreSQL store: run with --database-url")
    scenarios.invitation(driver, wait, binary, work, out, store)


def test_join(driver, wait, binary, work, out, store):
    if not store:
        pytest.skip("sign-up needs a PostgreSQL store: run with --database-url")
    scenarios.join(driver, wait, binary, work, out, store)


def test_sign_up(driver, wait, binary, work, out, store):
    if not store:
        pytest.skip("the sign-up page needs a PostgreSQL store: run with --database-url")
    scenarios.sign_up_by_domain(driver, wait, binary, work, out, store)


def test_operator(driver, wait, binary, work, out, store):
    if not store:
        pytest.skip("the operator's page needs a PostgreSQL store: run with --database-url")
    scenarios.operator_page(driver, wait, binary, work, out, store)


def test_caregiving(driver, wait, binary, work, out, store):
    if not store:
        pytest.skip("sharing needs a PostgreSQL store: run with --database-url")
    scenarios.caregiving(driver, wait, binary, work, out, store)


def test_caregiver_sweep(binary, work, out, store, request):
    """A caregiver's half-asleep double tap on the person's Tonight, at every control (sweep.py)."""
    if not store:
        pytest.skip("a caregiver's Tonight needs a PostgreSQL store: run with --database-url")
    import os
    import sweep
    full = request.config.getoption("--sweep") == "full"
    lines = []
    rows, failures = sweep.care_sweep(binary, work, store, full=full, workers=2, report=lines.append)
    print("\n".join(lines))
    with open(os.path.join(out, "tap-sweep-caregiver.md"), "w") as file:
        file.write("\n".join(lines) + "\n")
    scenarios.check(rows and not failures, f"every caregiver's double tap did what one tap does ({len(failures)} failed)")
    for failure in failures[:40]:
        scenarios.check(False, failure)
