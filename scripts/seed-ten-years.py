#!/usr/bin/env python3
"""Fills a DoseTap database (already created by `dosetap`) with ten years of varied nights for benchmarks.

Usage: scripts/seed-ten-years.py DB [--nights 3650]
Rows follow the v1 schema exactly, with derived session columns as DoseTap writes them.
"""
import argparse, datetime, json, random, sqlite3, uuid

SLEEP = [("bathroom", "physical"), ("water", "physical"), ("snack", "physical"), ("in_bed", "sleep_cycle"),
         ("lights_out", "sleep_cycle"), ("wake_temp", "sleep_cycle"), ("anxiety", "mental"), ("dream", "mental"),
         ("noise", "environment"), ("temperature", "environment"), ("pain", "environment")]


def iso(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("database")
    parser.add_argument("--nights", type=int, default=3650)
    args = parser.parse_args()
    rng = random.Random(42)
    db = sqlite3.connect(args.database)
    db.execute("PRAGMA foreign_keys = ON")
    first = datetime.date(2016, 11, 1)
    events = 0
    with db:
        for n in range(args.nights):
            date = first + datetime.timedelta(days=n)
            dose1 = datetime.datetime(date.year, date.month, date.day, 3, 0, tzinfo=datetime.timezone.utc) + datetime.timedelta(minutes=rng.randint(0, 90))
            sid = str(uuid.UUID(int=rng.getrandbits(128)))
            skipped = rng.random() < 0.05
            interval = rng.randint(150, 235)
            dose2 = None if skipped else dose1 + datetime.timedelta(minutes=interval)
            snoozes = rng.randint(0, 2)
            checkin = dose1 + datetime.timedelta(hours=8)
            db.execute("""INSERT INTO sleep_sessions (id, session_date, started_at, time_zone, ended_at, end_reason, terminal_state,
                          dose1_at, dose2_at, dose2_skipped, extra_dose_count, snooze_count, interval_minutes)
                          VALUES (?, ?, ?, 'America/New_York', ?, 'checkin', ?, ?, ?, ?, 0, ?, ?)""",
                       (sid, date.isoformat(), iso(dose1 - datetime.timedelta(minutes=20)), iso(checkin),
                        "skipped" if skipped else "completed", iso(dose1), dose2 and iso(dose2), int(skipped), snoozes,
                        None if skipped else interval))

            def dose(kind, moment, metadata):
                db.execute("""INSERT INTO dose_events (id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source,
                              note, event_type, metadata) VALUES (?, ?, ?, ?, -300, 'America/New_York', 'user', NULL, ?, ?)""",
                           (str(uuid.UUID(int=rng.getrandbits(128))), sid, iso(moment), iso(moment), kind, json.dumps(metadata, sort_keys=True)))

            dose("dose1", dose1, {"dose_index": 1, "is_early": False, "is_late": False})
            for s in range(snoozes):
                moment = dose1 + datetime.timedelta(minutes=155 + 10 * s)
                dose("snooze", moment, {"count": s + 1, "is_early": False, "is_late": False, "snooze_until": iso(moment + datetime.timedelta(minutes=10))})
            if skipped:
                dose("dose2_skipped", dose1 + datetime.timedelta(minutes=200), {"is_early": False, "is_late": False})
            else:
                dose("dose2", dose2, {"dose_index": 2, "is_early": False, "is_late": False})
            for k in range(rng.randint(10, 14)):
                kind, category = SLEEP[rng.randrange(len(SLEEP))]
                moment = dose1 + datetime.timedelta(minutes=rng.randint(-20, 420))
                note = rng.choice([None, None, "woke up, thirsty", "loud \"neighbours\"", "=not a formula"])
                db.execute("""INSERT INTO sleep_events (id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source,
                              note, event_type, category) VALUES (?, ?, ?, ?, -300, 'America/New_York', 'user', ?, ?, ?)""",
                           (str(uuid.UUID(int=rng.getrandbits(128))), sid, iso(moment), iso(moment), note, kind, category))
                events += 1
            db.execute("""INSERT INTO morning_checkins (id, session_id, occurred_at, recorded_at, utc_offset_minutes, time_zone, source,
                          note, sleep_quality, feel_rested, grogginess, mental_clarity, mood, readiness, notes, wellness_score)
                          VALUES (?, ?, ?, ?, -300, 'America/New_York', 'user', NULL, 3, 'moderate', 'mild', 5, 'neutral', 3, NULL, 58)""",
                       (str(uuid.UUID(int=rng.getrandbits(128))), sid, iso(checkin), iso(checkin)))
            events += 2 + snoozes + 1
    total = db.execute("SELECT (SELECT COUNT(*) FROM dose_events) + (SELECT COUNT(*) FROM sleep_events) + (SELECT COUNT(*) FROM morning_checkins)").fetchone()[0]
    print(f"seeded {args.nights} nights, {total} events")


if __name__ == "__main__":
    main()
