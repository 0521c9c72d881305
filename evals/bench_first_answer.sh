#!/bin/bash
# Usage (from the repository, after `make install`): evals/bench_first_answer.sh   (D=data dir, PORT=port, PY=python)
# What `make run` does after its install step, on a fresh data dir: `assistant ingest`, then
# `assistant serve`, until the page's /ask endpoint returns an answer.
export HF_HUB_OFFLINE=1 ANONYMIZED_TELEMETRY=False GRADIO_ANALYTICS_ENABLED=False
D=${D:-$(mktemp -d)/data}; PORT=${PORT:-7911}; rm -rf "$D"
PY=${PY:-.venv/bin/python}
t0=$(date +%s.%N)
$PY -m assistant.cli ingest --data-dir $D > "$D.ingest.log" 2>&1
t1=$(date +%s.%N)
$PY -m assistant.cli serve --data-dir $D --port $PORT > "$D.serve.log" 2>&1 &
SP=$!
$PY - <<PYEOF
import time
from gradio_client import Client
while True:
    try:
        c = Client("http://127.0.0.1:$PORT/", verbose=False)
        r = c.predict("What is Ring Attention?", "[]", "", "", api_name="/ask")
        print("answer:", r["answer"][:80].replace("\n", " "), "| backend", r.get("backend"))
        break
    except Exception as e:
        time.sleep(0.5)
PYEOF
t2=$(date +%s.%N)
kill $SP
echo "ingest $(echo "$t1-$t0" | bc) s, serve to first answer $(echo "$t2-$t1" | bc) s, total $(echo "$t2-$t0" | bc) s; load $(cut -d' ' -f1-3 /proc/loadavg)"
