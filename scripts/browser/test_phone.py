"""The phone as a person sets it up: HTTPS trusted through the local CA, and a real push alarm to the app's worker."""
import scenarios


def test_https_phone(binary, work, out):
    scenarios.https_phone(binary, work, out)


def test_push_alarm(binary, work, out):
    scenarios.push_alarm(binary, work, out)
