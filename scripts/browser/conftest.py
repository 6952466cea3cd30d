"""Fixtures of the real-browser scenarios: the built binary, the screenshot folder, a work folder and a fresh Chromium
at 390×844 for each scenario, so each one runs alone (`-k NAME`) and fails alone."""
import os
import sys
import tempfile

import pytest
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenarios  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--binary", default=".build/debug/dosetap", help="the dosetap binary under test")
    parser.addoption("--out", default=os.path.join(tempfile.gettempdir(), "dosetap-screens"), help="where screenshots go")
    parser.addoption("--sweep", default="ci", choices=["ci", "full"], help="the tap sweep's form: ci (every control, two gaps) or full")
    parser.addoption("--sweep-only", default=None, help="the tap sweep's phases whose names contain any of these (comma-separated)")
    parser.addoption("--sweep-workers", default="3", help="browsers the tap sweep runs side by side")
    parser.addoption("--database-url", default=None,
                     help="run every command on PostgreSQL: each --db PATH becomes a schema of its own at this URL")


@pytest.fixture(scope="session")
def binary(request):
    return os.path.abspath(request.config.getoption("--binary"))


@pytest.fixture(scope="session")
def out(request):
    folder = request.config.getoption("--out")
    os.makedirs(folder, exist_ok=True)
    return folder


@pytest.fixture(scope="session", autouse=True)
def store(request):
    """On PostgreSQL when asked: every `--db PATH` of every command and server becomes a schema of its own."""
    url = request.config.getoption("--database-url")
    if url:
        scenarios.on_postgres(url)
    return url


@pytest.fixture
def work(tmp_path):
    return str(tmp_path)


@pytest.fixture
def driver():
    chromium = scenarios.browser()
    yield chromium
    chromium.quit()


@pytest.fixture
def wait(driver):
    return WebDriverWait(driver, 10, ignored_exceptions=scenarios.SETTLE)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """A scenario's checks are soft (each prints ok or FAIL and the walk goes on, so one run shows every problem);
    any that failed fail that scenario, and only it."""
    scenarios.failures.clear()
    outcome = yield
    failed = list(scenarios.failures)
    scenarios.failures.clear()
    if failed and outcome.excinfo is None:
        outcome.force_exception(AssertionError(f"{len(failed)} check(s) failed:\n" + "\n".join(failed)))
