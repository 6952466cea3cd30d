#!/usr/bin/env python3
"""Real-browser test of the web UI with Debian's chromium and chromium-driver through selenium.

Pairs a browser, takes Dose 1, sees the live countdown, undoes within the window, takes it again, confirms an early
Dose 2 through the dialog, logs a bathroom trip; then screenshots Tonight in each phase at 390×844 and checks that
none of them scrolls. Usage: scripts/browser-test.py [path/to/dosetap] [--out DIR]
"""
import argparse, datetime, json, os, subprocess, sys, tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

WIDTH, HEIGHT = 390, 844
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def evening_zone(instant):
    """A fixed-offset zone in which `instant` falls between 22:00 and 23:00, so a night on the real clock never
    straddles the 18:00 rollover, whatever time of day the test runs (Etc/GMT signs are inverted)."""
    hours = (22 - instant.astimezone(datetime.timezone.utc).hour) % 24
    hours = hours - 24 if hours > 14 else hours
    return "Etc/UTC" if hours == 0 else f"Etc/GMT{-hours:+d}"


def serve(binary, database, now=None, zone="America/New_York"):
    arguments = [binary, "serve", "--db", database, "--port", "0", "--json", "--tz", zone]
    if now:
        arguments += ["--now", now]
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    info = json.loads(line)
    return process, info


def browser():
    options = webdriver.ChromeOptions()
    for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars", f"--window-size={WIDTH},{HEIGHT}"]:
        options.add_argument(flag)
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": WIDTH, "height": HEIGHT, "pixelRatio": 2}})
    binary = "/usr/bin/chromium"
    if os.path.exists(binary):
        options.binary_location = binary
    driver_path = "/usr/bin/chromedriver"
    return webdriver.Chrome(service=Service(driver_path) if os.path.exists(driver_path) else None, options=options)


def fits(driver):
    return driver.execute_script("return document.documentElement.scrollHeight <= window.innerHeight + 1 && document.documentElement.scrollWidth <= window.innerWidth + 1")


def primary(driver):
    return driver.find_element(By.CSS_SELECTOR, "button.primary, a.primary")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default=".build/debug/dosetap")
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "dosetap-screens"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="dosetap-browser-")
    driver = browser()
    # A form post replaces the page; an element found just before may go stale, so the waits look again.
    settle = [NoSuchElementException, StaleElementReferenceException]
    wait = WebDriverWait(driver, 10, ignored_exceptions=settle)
    try:
        # 1. A live night on the real clock.
        process, info = serve(args.binary, os.path.join(work, "live.sqlite"), zone=evening_zone(datetime.datetime.now(datetime.timezone.utc)))
        try:
            driver.get(info["pairing_url"])
            check("Take Dose 1" in primary(driver).text, "paired browser sees Take Dose 1")
            check(fits(driver), "Tonight (no Dose 1) fits 390x844 without scrolling")
            driver.save_screenshot(os.path.join(args.out, "tonight-no_dose1.png"))
            primary(driver).click()
            wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-undo-until]")))
            check("Dose 1 recorded" in driver.find_element(By.CSS_SELECTOR, ".snackbar").text, "undo snackbar after Dose 1")
            first = driver.find_element(By.CSS_SELECTOR, "[data-countdown]").text
            # The countdown ticks every second: wait (up to 10 s) for the text to change rather than sleeping.
            wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-countdown]").text != first)
            second = driver.find_element(By.CSS_SELECTOR, "[data-countdown]").text
            check(first != second, f"the countdown is live ({first} → {second})")
            check(driver.find_element(By.ID, "announcer").get_attribute("aria-live") == "assertive", "changes are announced to screen readers")
            driver.find_element(By.CSS_SELECTOR, ".snackbar button").click()
            wait.until(lambda d: "Take Dose 1" in primary(d).text)
            check(True, "undo within the window brings back Take Dose 1")
            primary(driver).click()
            wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-ring]")))
            check(fits(driver), "Tonight (before the window) fits without scrolling")
            driver.save_screenshot(os.path.join(args.out, "tonight-before_window.png"))
            primary(driver).click()
            dialog = wait.until(EC.visibility_of_element_located((By.ID, "risk-dialog")))
            check("Taking it early is unsafe" in dialog.text, "the dialog names the risk: " + dialog.find_element(By.CSS_SELECTOR, "[data-risk-text]").text)
            dialog.find_element(By.CSS_SELECTOR, "[data-risk-yes]").click()
            wait.until(lambda d: "Dose 2 was taken early tonight" in d.page_source)
            check(True, "early Dose 2 recorded after confirming, with its warning")
            driver.find_element(By.CSS_SELECTOR, "button[aria-label='Log Bathroom']").click()
            wait.until(lambda d: "Bathroom recorded" in d.page_source)
            check(True, "bathroom trip logged from the grid")
            check(fits(driver), "Tonight (night complete) fits without scrolling")
            driver.save_screenshot(os.path.join(args.out, "tonight-completed.png"))

            # Medications: the usual dose is filled in where it can be seen and changed, never assumed.
            driver.get(info["listening"] + "/medications")
            Select(driver.find_element(By.ID, "medication")).select_by_value("modafinil")
            driver.find_element(By.CSS_SELECTOR, "form[action='/medications'] button[type=submit]").click()
            amount = wait.until(EC.visibility_of_element_located((By.ID, "amount")))
            check(amount.get_attribute("value") == "200", f"the usual Modafinil dose is filled in and visible ({amount.get_attribute('value')!r})")
            driver.save_screenshot(os.path.join(args.out, "medications-modafinil.png"))
            amount.clear()
            amount.send_keys("100")
            driver.find_element(By.CSS_SELECTOR, "form[action='/ui/medications'] button[type=submit]").click()
            wait.until(lambda d: "100 mg" in d.page_source)
            check(True, "Modafinil 100 mg logged as typed")
        finally:
            process.terminate()
            process.wait(10)

        # 2. The phases that need the clock moved: one server per instant, on the same night.
        database = os.path.join(work, "phases.sqlite")
        dose1 = datetime.datetime(2026, 11, 22, 3, 30, tzinfo=datetime.timezone.utc)
        subprocess.run([args.binary, "dose1", "--db", database, "--tz", "America/New_York", "--now", dose1.isoformat()], check=True, capture_output=True)
        labels = {"active": "Dose 2 window open", "near_close": "Dose 2 window closing soon", "closed": "Dose 2 window closed"}
        for phase, minutes in [("active", 160), ("near_close", 230), ("closed", 245)]:
            now = (dose1 + datetime.timedelta(minutes=minutes)).isoformat()
            process, info = serve(args.binary, database, now)
            try:
                driver.delete_all_cookies()
                driver.get(info["pairing_url"])
                heading = driver.find_element(By.TAG_NAME, "h1").text
                check(heading == labels[phase], f"Tonight shows the {phase} phase ({heading!r})")
                check(fits(driver), f"Tonight ({phase}) fits without scrolling")
                driver.save_screenshot(os.path.join(args.out, f"tonight-{phase}.png"))
            finally:
                process.terminate()
                process.wait(10)

        # 3. A reminder rings on an open page: Dose 1 taken 164 min 48 s ago, so the wake alarm (target 165 min) comes
        # due within seconds; the window-open and pre-alarm reminders passed while no server ran and are logged missed.
        database = os.path.join(work, "reminder.sqlite")
        dose1 = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=164, seconds=48)
        zone = evening_zone(dose1)
        subprocess.run([args.binary, "dose1", "--db", database, "--tz", zone, "--now", dose1.strftime("%Y-%m-%dT%H:%M:%SZ")],
                       check=True, capture_output=True)
        process, info = serve(args.binary, database, zone=zone)
        try:
            driver.delete_all_cookies()
            driver.get(info["pairing_url"])
            driver.execute_script("""
                window.__notes = [];
                window.Notification = function (title, options) { window.__notes.push(options.body); };
                window.Notification.permission = "granted";
                window.Notification.requestPermission = function () { return Promise.resolve("granted"); };
                window.__tones = 0;
                const tone = AudioContext.prototype.createOscillator;
                AudioContext.prototype.createOscillator = function () { window.__tones++; return tone.call(this); };
            """)
            alarms = driver.find_element(By.CSS_SELECTOR, "[data-enable-alarms]")
            check(alarms.is_displayed(), "the page offers to turn alarms on")
            alarms.click()
            WebDriverWait(driver, 30, ignored_exceptions=settle).until(lambda d: d.find_element(By.ID, "reminder-banner").is_displayed())
            banner = driver.find_element(By.ID, "reminder-banner").text
            check(banner == "Time for Dose 2.", f"the reminder reaches the open page ({banner!r})")
            check(driver.execute_script("return window.__notes") == ["Time for Dose 2."], "and raises a browser notification")
            check(driver.execute_script("return window.__tones") == 2, "and rings (one test tone when alarms were turned on, one for the alarm)")
            WebDriverWait(driver, 5, ignored_exceptions=settle).until(lambda d: d.find_element(By.ID, "announcer").get_attribute("textContent") != "")
            check(driver.find_element(By.ID, "announcer").get_attribute("textContent") == "Time for Dose 2.", "and is announced to screen readers")
        finally:
            process.terminate()
            process.wait(10)
    finally:
        driver.quit()
    print(f"screenshots in {args.out}")
    print("PASS" if not failures else f"FAIL ({len(failures)})")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
