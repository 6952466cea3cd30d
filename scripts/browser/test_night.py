"""Tonight through a whole night: live on the real clock, at each phase of the window, half-asleep taps, and a
reminder ringing on an open page."""
import scenarios


def test_live_night(driver, wait, binary, work, out):
    scenarios.live_night(driver, wait, binary, work, out)


def test_clock_phases(driver, wait, binary, work, out):
    scenarios.clock_phases(driver, wait, binary, work, out)


def test_double_tap_night(driver, wait, binary, work, out):
    scenarios.double_tap_night(driver, wait, binary, work, out)


def test_window_cue(driver, binary, work):
    scenarios.window_cue(driver, binary, work)


def test_late_night(driver, binary, work, out):
    scenarios.late_night(driver, binary, work, out)


def test_midnight_checkin(driver, binary, work, out):
    scenarios.midnight_checkin(driver, binary, work, out)


def test_reminder_rings(driver, binary, work, out):
    scenarios.reminder_rings(driver, binary, work, out)


def test_past_maximum(driver, binary, work, out):
    scenarios.past_maximum(driver, binary, work, out)


def test_once_nightly(driver, binary, work, out):
    scenarios.once_nightly(driver, binary, work, out)


def test_titration_plan(driver, binary, work, out):
    scenarios.titration_plan(driver, binary, work, out)
