"""The installed app cut off from the server: the worker's Tonight, taps kept on the phone and replayed once,
confirmations asked, and the window's boundaries crossed offline."""
import scenarios


def test_offline(driver, binary, work, out):
    scenarios.offline(driver, binary, work, out)


def test_offline_confirmations(driver, binary, work, out):
    scenarios.offline_confirmations(driver, binary, work, out)


def test_offline_boundary(driver, binary, work, out):
    scenarios.offline_boundary(driver, binary, work, out)
