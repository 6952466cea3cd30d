#!/usr/bin/env python3
"""Writes a realistic Apple Health export.xml of about SIZE MB: Health's prolog and DTD, then a watch's records every
five minutes (steps, heart rate, energy, distance, with Health's long device attribute) and a night's sleep stages
each day, as the iPhone's "Export All Health Data" lays them out. For the import benchmark.
Usage: scripts/make-health-export.py OUT.xml SIZE_MB"""
import sys, random
target = int(sys.argv[2]) * 1024 * 1024
random.seed(1)
out = open(sys.argv[1], "w")
out.write('''<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record type CDATA #REQUIRED unit CDATA #IMPLIED value CDATA #IMPLIED sourceName CDATA #REQUIRED sourceVersion CDATA #IMPLIED device CDATA #IMPLIED creationDate CDATA #IMPLIED startDate CDATA #REQUIRED endDate CDATA #REQUIRED>
]>
<HealthData locale="en_US">
 <ExportDate value="2026-02-09 08:00:00 -0500"/>
''')
types = [("HKQuantityTypeIdentifierStepCount", "count", "120"), ("HKQuantityTypeIdentifierHeartRate", "count/min", "58"),
         ("HKQuantityTypeIdentifierActiveEnergyBurned", "kcal", "0.42"), ("HKQuantityTypeIdentifierDistanceWalkingRunning", "km", "0.011")]
written = 0
day = 0
while written < target:
    for hour in range(24):
        for minute in range(0, 60, 5):
            t, unit, value = random.choice(types)
            stamp = f"2024-{1 + day // 28 % 12:02d}-{1 + day % 28:02d} {hour:02d}:{minute:02d}:00 -0500"
            line = f' <Record type="{t}" sourceName="Alice’s Apple Watch" sourceVersion="10.2" device="&lt;&lt;HKDevice: 0x283e1a4e0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.2&gt;" unit="{unit}" creationDate="{stamp}" startDate="{stamp}" endDate="{stamp}" value="{value}"/>\n'
            out.write(line); written += len(line)
        stamp = f"2024-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}"
        if hour == 23:
            for stage, a, b in [("InBed", "22:00", "23:59"), ("AsleepCore", "22:20", "23:30"), ("AsleepDeep", "23:30", "23:59")]:
                line = f' <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Alice’s Apple Watch" sourceVersion="10.2" creationDate="{stamp} 07:00:00 -0500" startDate="{stamp} {a}:00 -0500" endDate="{stamp} {b}:00 -0500" value="HKCategoryValueSleepAnalysis{stage}"/>\n'
                out.write(line); written += len(line)
    day += 1
out.write("</HealthData>\n")
