#!/usr/bin/env bash
# The end to end on the real server (issue 13): observe three loads (and a repeat of the
# medium one: the spread), calibrate the lab on the medium run (its requests and its step
# log), predict the others with `lab fidelity`, and print the table; a prefix run and, on
# the 32-block server, a preemption run are predicted too. Accuracy is reported, not
# judged here: the stage fails only when a tool does.
# Usage: end_to_end.sh URL SMALL_KV_URL SERVER_LOG OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
url=$1 small=$2 log=$3 out=$4
lab=${LAB:-$repo/.venv/bin/lab}
mkdir -p "$out/runs" "$out/steps"
engine=(model=tiny-llama-cpu hardware="$repo/core/data/hardware/cpu-2core.toml")
load=(dataset=random random_input_len=128 random_output_len=24 random_range_ratio=0.5 num_prompts=40)
seed=$(( $(date +%s) % 100000 * 10 ))  # fresh prompts each time: none already in the prefix cache

still() {  # the API server logs a step when its output reaches it: wait until the log is still
    for _ in $(seq 1 20); do size=$(wc -c <"$log"); sleep 0.5; [ "$(wc -c <"$log")" = "$size" ] && break; done
}

observe() {  # observe NAME URL KEYS...; a run on the main server gets its steps cut to steps/NAME.log
    local name=$1 where=$2 start
    shift 2
    seed=$((seed + 1))
    still
    start=$(wc -c <"$log")
    "$lab" observe "$where" "$@" seed=$seed --out "$out/$name" >"$out/$name.txt" 2>&1 \
        || { tail -n 20 "$out/$name.txt"; exit 1; }
    cp "$out/$name/result.json" "$out/runs/$name.json"  # the run's name in the tables
    if [ "$where" = "$url" ]; then  # for diagnosis: the calibration reads medium_steps.log alone
        still
        "$here/cut_steps.sh" "$log" "$start" >"$out/steps/$name.log"
    fi
    echo "   observed $name: $(grep -E "Median TTFT|Median TPOT" "$out/$name.txt" | tr -s ' ' | paste -sd';')"
}

observe low "$url" "${load[@]}" request_rate=2
observe medium "$url" "${load[@]}" request_rate=8
cp "$out/steps/medium.log" "$out/medium_steps.log"
observe medium_repeat "$url" "${load[@]}" request_rate=8
observe saturated "$url" "${load[@]}" request_rate=inf
observe prefix "$url" dataset=random random_prefix_len=384 random_input_len=64 random_output_len=8 \
    num_prompts=24 request_rate=4
observe small_kv "$small" dataset=random random_input_len=64 random_output_len=96 num_prompts=16 request_rate=inf

echo "   calibrate on the medium run:"
"$lab" calibrate "$out/runs/medium.json" "${engine[@]}" --steps "$out/medium_steps.log" \
    --out "$out/profile.toml" | tee "$out/calibrate.txt" | sed 's/^/   /'
echo "   predict the others (the medium repeat gives the spread of one load):"
runs=(low medium_repeat saturated prefix small_kv medium)  # the last: the run it was fitted to
files=("${runs[@]/#/$out/runs/}")
files=("${files[@]/%/.json}")
# with every main-server run's steps: the per-step errors of the runs not fitted as well
files+=("$out"/steps/*.log)
"$lab" fidelity "${files[@]}" profile="$out/profile.toml" --json >"$out/fidelity.json"
"$lab" fidelity "${files[@]}" profile="$out/profile.toml" --plot "$out/fidelity.png" \
    | tee "$out/fidelity.txt" | sed 's/^/   /'
echo "   the errors (measured -> predicted), fitted on the medium run:"
python3 "$here/e2e_table.py" "$out/fidelity.json" medium | tee "$out/e2e_table.md" | sed 's/^/   /'
echo "   results in $out"
