#!/usr/bin/env bash
# The API against its published contract: schemathesis (PyPI) reads /openapi.json from a live `dosetap serve` and
# sends what the document allows and what it forbids (examples, coverage, fuzzing and stateful phases, positive and
# negative data). It fails on any 5xx, any answer that violates its schema, any status the document does not list,
# any schema-violating body accepted, and any method an address does not take answered other than 405.
#
# Not checked: that every schema-valid request is accepted. The dose rules refuse well-formed requests by design
# (an early Dose 2 is a valid body and must answer 422; an undo with nothing to undo is 404).
#
# Usage: scripts/api-contract.sh PATH/TO/dosetap [max-examples]   (SCHEMATHESIS_SEED picks another seed;
# DOSETAP_CONTRACT_POSTGRES_URL=postgres://… runs the sharing operations again on a shared store of two people, served
# as DOSETAP_CONTRACT_POSTGRES_ROLE or DOSETAP_TEST_POSTGRES_ROLE when one is set)
set -euo pipefail
binary=$1
examples=${2:-20}
work=$(mktemp -d)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
token() { python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])'; }
wait_for() {
    python3 - "$1" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(sys.argv[1] + "/health", timeout=1); break
    except Exception:
        time.sleep(0.1)
else:
    sys.exit("dosetap serve did not answer /health")
PY
}
# Still standing after all of it, and no request logged as a DoseTap bug.
still_standing() {
    python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/health", timeout=5)' "$1"
    if grep -q "request failed" "$2"; then
        echo "dosetap serve logged an internal error:" >&2
        grep "request failed" "$2" >&2
        exit 1
    fi
}
contract() { # BASE TOKEN CONFIG [st options…]
    local base=$1 bearer=$2 config=$3
    shift 3
    st --config-file "$config" run "$base/openapi.json" -H "Authorization: Bearer $bearer" \
        --phases examples,coverage,fuzzing,stateful --mode all --max-examples "$examples" \
        --seed "${SCHEMATHESIS_SEED:-1}" --workers "${workers:-2}" --exclude-checks positive_data_acceptance "$@"
}

bearer=$("$binary" device add schemathesis --json --db "$work/db.sqlite" | token)
listen=$(port)
# The per-device rate limit would answer most of the run 429; the limit itself is tested in DoseServerTests.
"$binary" serve --db "$work/db.sqlite" --port "$listen" --rate-limit 1000000 > "$work/serve.log" 2>&1 &
server=$!
base="http://127.0.0.1:$listen"
wait_for "$base"
contract "$base" "$bearer" "$(dirname "$0")/schemathesis.toml"
still_standing "$base" "$work/serve.log"
echo "API contract: schemathesis found nothing; the server still answers."

# Sharing answers only on a shared PostgreSQL store (a SQLite file refuses it with 403): with a server given, the
# sharing operations and every route a grant opens run again there, as Bob, to whom Alice gave every grant.
[ -n "${DOSETAP_CONTRACT_POSTGRES_URL:-}" ] || exit 0
case "$DOSETAP_CONTRACT_POSTGRES_URL" in *\?*) joiner="&" ;; *) joiner="?" ;; esac
store="${DOSETAP_CONTRACT_POSTGRES_URL}${joiner}search_path=contract_$(date +%s)_$$"
export DOSETAP_CONTRACT_PERSON
DOSETAP_CONTRACT_PERSON=$("$binary" person add alice@example.org --database "$store" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
"$binary" person add bob@example.org --database "$store" --json > /dev/null
alice=$("$binary" device add alice --person alice@example.org --database "$store" --json | token)
bob=$("$binary" device add bob --person bob@example.org --database "$store" --json | token)
kill "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
# Served as a hosted store is, when a role is named: one that owns nothing, so every request runs under row-level security.
# Without one, the schema's owner serves it, which `serve` refuses unless told (--allow-owner-role).
served="$store"
owner_role=(--allow-owner-role)
role="${DOSETAP_CONTRACT_POSTGRES_ROLE:-${DOSETAP_TEST_POSTGRES_ROLE:-}}"
if [ -n "$role" ]; then
    "$binary" store grant "$role" --database "$store" > /dev/null
    served=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(netloc=sys.argv[2] + "@" + p.hostname + (":%d" % p.port if p.port else ""))))' "$store" "$role")
    owner_role=()
fi
listen=$(port)
"$binary" serve --database "$served" --port "$listen" --rate-limit 1000000 "${owner_role[@]}" > "$work/serve-shared.log" 2>&1 &
server=$!
base="http://127.0.0.1:$listen"
wait_for "$base"
invite=$(curl -fsS -X POST "$base/v1/shares" -H "Authorization: Bearer $alice" -H "Content-Type: application/json" \
    -d '{"email": "bob@example.org", "grants": ["view", "report", "alarms", "log"]}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["invite_url"].split("=")[1])')
curl -fsS -X POST "$base/v1/invitations/accept" -H "Authorization: Bearer $bob" -H "Content-Type: application/json" \
    -d "{\"token\": \"$invite\"}" > /dev/null
# One worker: two threads of schemathesis's coverage phase have crashed inside Python's `ast` (a SystemError of
# CPython 3.11's parser when two threads compile at once), failing the run on schemathesis's own error.
workers=1 contract "$base" "$bob" "$(dirname "$0")/schemathesis-sharing.toml" --include-path-regex '^/v1/(shares|people|audit|invitations)'
still_standing "$base" "$work/serve-shared.log"
echo "API contract, sharing on PostgreSQL: schemathesis found nothing; the server still answers."
