#!/usr/bin/env python3
"""Seeds a PostgreSQL store (one schema) with the night tables of a SQLite DoseTap database, for benchmarks that
compare the two stores on the same nights (scripts/benchmark.sh --database). Not `dosetap store copy`: it copies only
the tables the PostgreSQL store has so far, with psql's COPY, and verifies the row counts.

Usage: scripts/seed-postgres-from-sqlite.py SQLITE_DB POSTGRES_URL SCHEMA
The schema must already hold DoseTap's tables (run any `dosetap ... --database URL?search_path=SCHEMA` first).
"""
import csv, io, sqlite3, subprocess, sys

# Copied in this order so every foreign key finds its row.
TABLES = ["settings", "sleep_sessions", "dose_events", "sleep_events", "morning_checkins", "night_summaries", "reminder_log",
          "alarm_acknowledgements", "audit_log"]
PERSONAL = {"settings", "sleep_sessions", "dose_events", "sleep_events", "morning_checkins", "audit_log"}


def psql(url, sql, stdin=None):
    return subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql], input=stdin, check=True, capture_output=True,
                          text=True).stdout


def main():
    source, url, schema = sys.argv[1:4]
    db = sqlite3.connect(source)
    person = psql(url, f"SELECT id FROM {schema}.people ORDER BY id LIMIT 1").strip()
    if not person:
        sys.exit("the PostgreSQL store has no person yet: run a dosetap command against it first")
    for table in TABLES:
        columns = psql(url, f"""SELECT column_name FROM information_schema.columns
            WHERE table_schema = '{schema}' AND table_name = '{table}' ORDER BY ordinal_position""").split()
        sqlite_columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        wanted = [c for c in columns if c != "person_id"]
        missing = [c for c in wanted if c not in sqlite_columns]
        if missing:
            sys.exit(f"{table}: the SQLite table has no {missing}")
        out = io.StringIO()
        writer = csv.writer(out)
        count = 0
        for row in db.execute(f"SELECT {', '.join(wanted)} FROM {table}"):
            values = [("\\N" if v is None else v) for v in row]
            writer.writerow(([person] if "person_id" in columns else []) + values)
            count += 1
        order = (["person_id"] if "person_id" in columns else []) + wanted
        psql(url, f"\\copy {schema}.{table} ({', '.join(order)}) FROM STDIN WITH (FORMAT csv, NULL '\\N')", stdin=out.getvalue())
        stored = int(psql(url, f"SELECT count(*) FROM {schema}.{table}").strip())
        if stored != count:
            sys.exit(f"{table}: {count} rows read, {stored} in PostgreSQL")
        print(f"{table}: {count} rows")


if __name__ == "__main__":
    main()
