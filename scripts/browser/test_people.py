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


def test_caregiving(driver, wait, binary, work, out, store):
    if not store:
        pytest.skip("sharing needs a PostgreSQL store: run with --database-url")
    scenarios.caregiving(driver, wait, binary, work, out, store)
