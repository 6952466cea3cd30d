#!/usr/bin/env bash
# Records the same four nights through a given `dosetap` binary and exports its bundle. Run with the build of each
# released bundle format to make the fixtures under Tests/DoseStoreTests/Fixtures/ (see README there).
# Usage: scripts/make-bundle-fixture.sh path/to/dosetap OUT.zip
set -euo pipefail
binary="$1"
out="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
db="$work/fixture.sqlite"
run() { "$binary" "$@" --db "$db" --tz America/New_York > /dev/null; }

# Settings chosen explicitly, so the bundle says the same whatever machine made it.
run settings set time_zone America/New_York --now 2026-11-01T01:00:00Z
run settings set target_interval 180 --now 2026-11-01T01:00:00Z
run settings set cooldown.water 120 --now 2026-11-01T01:00:00Z

# The supply (schema 8 on): two bottles before the first night, and a spill with a reason that looks like a formula.
if "$binary" supply --help > /dev/null 2>&1; then
  run supply log --bottles 2 --reason 'specialty pharmacy' --now 2026-11-01T01:30:00Z
  run supply adjust --remove 2.5 --reason '=spilled, "oops"' --now 2026-11-03T12:00:00Z
fi

# Night of 2026-10-31 (the fall-back night in New York): pre-sleep, doses on time, a bathroom trip, wake-up,
# check-in, a morning medication.
run presleep --now 2026-11-01T02:00:00Z --intended-sleep in_30_min --stress 2 --stress-driver work --caffeine-cups 2
run dose1 --now 2026-11-01T02:30:00Z
run log bathroom --now 2026-11-01T04:10:00Z --note 'say "hi", then =SUM(A1:A9)'
run dose2 --now 2026-11-01T05:20:00Z
run wake --now 2026-11-01T12:00:00Z
run checkin --now 2026-11-01T12:05:00Z --quality 4 --rested well --grogginess mild --dreams vivid --mood good
run med log modafinil:100mg --now 2026-11-01T13:00:00Z

# Night of 2026-11-01: two snoozes, a late Dose 2 confirmed, a nap the next afternoon.
run dose1 --now 2026-11-02T03:00:00Z
run snooze --now 2026-11-02T05:35:00Z
run snooze --now 2026-11-02T05:46:00Z
run dose2 --now 2026-11-02T07:05:00Z --confirm late --note 'woke late'
run checkin --now 2026-11-02T13:00:00Z --quality 2 --grogginess severe
run log nap_start --now 2026-11-02T19:00:00Z
run log nap_end --now 2026-11-02T19:40:00Z

# Night of 2026-11-02: Dose 2 skipped on purpose.
run dose1 --now 2026-11-03T03:15:00Z
run skip --now 2026-11-03T06:00:00Z --reason 'felt unwell'
run checkin --now 2026-11-03T12:30:00Z --quality 3

# Night of 2026-11-03: slept through; the status read after 270 minutes records the expiry.
run dose1 --now 2026-11-04T03:20:00Z
run log water --now 2026-11-04T04:00:00Z
run status --now 2026-11-04T08:00:00Z

# Wearable sleep (schema 9 on): the Health app's export for the night of 2026-11-01, from a watch and a phone that
# overlap, with a heart rate inside the night and one in the afternoon (left out).
cat > "$work/export.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
]>
<HealthData locale="en_US">
 <ExportDate value="2026-11-05 07:00:00 -0500"/>
 <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Apple Watch" startDate="2026-11-01 22:10:00 -0500" endDate="2026-11-01 23:40:00 -0500" value="HKCategoryValueSleepAnalysisAsleepCore"/>
 <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Apple Watch" startDate="2026-11-01 23:40:00 -0500" endDate="2026-11-02 00:30:00 -0500" value="HKCategoryValueSleepAnalysisAsleepDeep"/>
 <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Apple Watch" startDate="2026-11-02 00:30:00 -0500" endDate="2026-11-02 00:45:00 -0500" value="HKCategoryValueSleepAnalysisAwake"/>
 <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Apple Watch" startDate="2026-11-02 00:45:00 -0500" endDate="2026-11-02 06:40:00 -0500" value="HKCategoryValueSleepAnalysisAsleepREM"/>
 <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="iPhone" startDate="2026-11-01 22:00:00 -0500" endDate="2026-11-02 07:00:00 -0500" value="HKCategoryValueSleepAnalysisInBed"/>
 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch" unit="count/min" startDate="2026-11-02 01:00:00 -0500" endDate="2026-11-02 01:00:00 -0500" value="52"/>
 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch" unit="count/min" startDate="2026-11-02 15:00:00 -0500" endDate="2026-11-02 15:00:00 -0500" value="88"/>
</HealthData>
XML
run import "$work/export.xml" --now 2026-11-05T11:00:00Z || echo "(this build reads no Health export)"

# Sleeps given as totals (schema 10 on): WHOOP's sleeps.csv for the night of 2026-11-02 (the skipped Dose 2), with a
# nap, and its physiological cycle with the recovery scored the morning after.
cat > "$work/sleeps.csv" <<'CSV'
Cycle start time,Cycle end time,Cycle timezone,Sleep onset,Wake onset,Sleep performance %,Respiratory rate (rpm),Asleep duration (min),In bed duration (min),Light sleep duration (min),Deep (SWS) duration (min),REM duration (min),Awake duration (min),Sleep need (min),Sleep debt (min),Sleep efficiency %,Sleep consistency %,Nap
2026-11-02 23:05:00,2026-11-03 22:50:00,UTC-05:00,2026-11-02 23:05:00,2026-11-03 06:50:00,84,15.1,410,465,205,90,115,55,490,30,88.2,71,false
2026-11-02 23:05:00,2026-11-03 22:50:00,UTC-05:00,2026-11-03 15:00:00,2026-11-03 15:30:00,,,25,30,20,5,0,5,,,,,true
CSV
cat > "$work/physiological_cycles.csv" <<'CSV'
Cycle start time,Cycle end time,Cycle timezone,Recovery score %,Resting heart rate (bpm),Heart rate variability (ms),Skin temp (celsius),Blood oxygen %,Day Strain,Energy burned (cal),Max HR (bpm),Average HR (bpm),Sleep onset,Wake onset,Sleep performance %,Respiratory rate (rpm),Asleep duration (min),In bed duration (min),Light sleep duration (min),Deep (SWS) duration (min),REM duration (min),Awake duration (min),Sleep need (min),Sleep debt (min),Sleep efficiency %,Sleep consistency %
2026-11-02 23:05:00,2026-11-03 22:50:00,UTC-05:00,58,55,44.2,33.6,95.8,8.4,1980,141,68,2026-11-02 23:05:00,2026-11-03 06:50:00,84,15.1,410,465,205,90,115,55,490,30,88.2,71
CSV
(cd "$work" && zip -q whoop.zip sleeps.csv physiological_cycles.csv)
run import "$work/whoop.zip" --now 2026-11-05T11:30:00Z || echo "(this build reads no WHOOP export)"

run export --format bundle --now 2026-11-05T12:00:00Z --out "$out"
echo "wrote $out"
