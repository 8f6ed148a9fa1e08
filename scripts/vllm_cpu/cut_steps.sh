#!/usr/bin/env bash
# The step log of one run out of a server's log: cut_steps.sh SERVER_LOG START_BYTE > RUN_steps.log
# First the token counts the server's steps had before START_BYTE (a step of a count the
# server never ran builds its GEMMs' kernels: core/calibrate/step_log.py reads this line),
# then the log's "KV cache size" line and the Iteration(N) lines after START_BYTE.
set -euo pipefail
log=$1 start=$2
sizes=$(head -c "$start" "$log" \
    | sed -nE 's/.* ([0-9]+) context tokens, [0-9]+ generation requests, ([0-9]+) generation tokens.*/\1 \2/p' \
    | awk '{print $1 + $2}' | sort -nu | paste -sd, -)
echo "# load-lab: sizes run before: $sizes"
grep -m 1 "KV cache size" "$log"
tail -c +"$((start + 1))" "$log" | grep "Iteration("
