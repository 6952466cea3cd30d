"""The record of past nights: insights and the clinician report, deleting nights, and a wearable's sleep."""
import scenarios


def test_insights_and_report(driver, binary, work, out):
    scenarios.insights_and_report(driver, binary, work, out)


def test_deleting_nights(driver, binary, work, out):
    scenarios.deleting_nights(driver, binary, work, out)


def test_sleep_details(driver, binary, work, out):
    scenarios.sleep_details(driver, binary, work, out)
