#!/usr/bin/env python3
"""Records a month of varied nights through the real `dosetap` binary, for the insights browser test and demos.

Usage: scripts/seed-insights.py DOSETAP DB [--nights 28]
Nights start 2026-10-01 in America/New_York (Dose 1 at 22:30 local). Odd nights have the TV on and a poorer check-in;
every third night has caffeine; intervals vary around a 165-minute target, with one skipped night.
Prints the instant just after the last night, for `--now`.
"""
import argparse, datetime, json, os, subprocess, tempfile

ZONE = "America/New_York"


def run(binary, database, now, *arguments):
    stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    subprocess.run([binary, *arguments, "--db", database, "--tz", ZONE, "--now", stamp], check=True, capture_output=True, text=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("database")
    parser.add_argument("--nights", type=int, default=28)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="dosetap-seed-")
    intervals = [165, 172, 158, 190, 168, 163, 181, 166, 155, 175, 170, 162, 200, 167]
    for n in range(args.nights):
        # 22:30 in New York (EDT until 1 November, then EST).
        local = datetime.datetime(2026, 10, 1) + datetime.timedelta(days=n, hours=22, minutes=30)
        offset = 4 if local < datetime.datetime(2026, 11, 1, 2) else 5
        dose1 = local + datetime.timedelta(hours=offset)
        tv = n % 2 == 1
        presleep = {"stress_level": 4 if n % 4 == 0 else 2, "caffeine_cups": 1 if n % 3 == 0 else 0, "alcohol_drinks": 0,
                    "exercise_type": "light" if n % 2 == 0 else "none", "screen_time_30_min_prior": tv}
        path = os.path.join(work, "presleep.json")
        with open(path, "w") as handle:
            json.dump(presleep, handle)
        run(args.binary, args.database, dose1 - datetime.timedelta(minutes=40), "presleep", "--from-json", path)
        run(args.binary, args.database, dose1, "dose1")
        run(args.binary, args.database, dose1 + datetime.timedelta(minutes=50), "log", "bathroom")
        if tv:
            run(args.binary, args.database, dose1 + datetime.timedelta(minutes=95), "log", "water")
        if n == 9:
            run(args.binary, args.database, dose1 + datetime.timedelta(minutes=200), "skip", "--reason", "felt unwell")
        else:
            run(args.binary, args.database, dose1 + datetime.timedelta(minutes=intervals[n % len(intervals)]), "dose2")
        checkin = {"sleep_quality": 2 if tv else 4, "grogginess": "moderate" if tv else "none",
                   "sleep_environment": {"sleep_aids_used": ["tv_on"] if tv else ["dark_room"], "noise_level": "some_noise" if n % 3 == 0 else "quiet",
                                         **({"screen_in_bed_minutes_bucket": "15_45"} if tv else {})}}
        with open(path, "w") as handle:
            json.dump(checkin, handle)
        run(args.binary, args.database, dose1 + datetime.timedelta(hours=8, minutes=30), "checkin", "--from-json", path)
    last = datetime.datetime(2026, 10, 1) + datetime.timedelta(days=args.nights - 1, hours=22, minutes=30)
    print((last + datetime.timedelta(hours=5 + 12)).strftime("%Y-%m-%dT%H:%M:%SZ"))


if __name__ == "__main__":
    main()
