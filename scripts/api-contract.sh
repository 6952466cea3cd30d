#!/usr/bin/env bash
# The API against its published contract: schemathesis (PyPI) reads /openapi.json from a live `dosetap serve` and
# sends what the document allows and what it forbids (examples, coverage, fuzzing and stateful phases, positive and
# negative data). It fails on any 5xx, any answer that violates its schema, any status the document does not list,
# any schema-violating body accepted, and any method an address does not take answered other than 405.
#
# Not checked: that every schema-valid request is accepted. The dose rules refuse well-formed requests by design
# (an early Dose 2 is a valid body and must answer 422; an undo with nothing to undo is 404).
#
# Usage: scripts/api-contract.sh PATH/TO/dosetap [max-examples]   (SCHEMATHESIS_SEED picks another seed)
set -euo pipefail
binary=$1
examples=${2:-20}
work=$(mktemp -d)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$binary" device add schemathesis --json --db "$work/db.sqlite" > "$work/device.json"
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$work/device.json")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The per-device rate limit would answer most of the run 429; the limit itself is tested in DoseServerTests.
"$binary" serve --db "$work/db.sqlite" --port "$port" --rate-limit 1000000 > "$work/serve.log" 2>&1 &
server=$!
base="http://127.0.0.1:$port"
python3 - "$base" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(sys.argv[1] + "/health", timeout=1); break
    except Exception:
        time.sleep(0.1)
else:
    sys.exit("dosetap serve did not answer /health")
PY

st --config-file "$(dirname "$0")/schemathesis.toml" run "$base/openapi.json" -H "Authorization: Bearer $token" \
    --phases examples,coverage,fuzzing,stateful --mode all --max-examples "$examples" \
    --seed "${SCHEMATHESIS_SEED:-1}" --workers 2 --exclude-checks positive_data_acceptance

# Still standing after all of it, and no request logged as a DoseTap bug.
python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/health", timeout=5)' "$base"
if grep -q "request failed" "$work/serve.log"; then
    echo "dosetap serve logged an internal error:" >&2
    grep "request failed" "$work/serve.log" >&2
    exit 1
fi
echo "API contract: schemathesis found nothing; the server still answers."
