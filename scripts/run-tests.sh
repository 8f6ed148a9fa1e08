#!/usr/bin/env bash
# `make test`: the suite on every core (pytest-xdist, -n auto), then the tests that time a
# real sound device against a recording of it, alone: beside other work the recorder and
# the sound server run late, and those tests would judge the machine, not the engine.
# The 40 slowest tests are listed at the end (the suite has a time budget).
# Arguments go to pytest as given. With -m (a marker choice of its own), -n, -p, -s or
# --pdb among them the run is exactly the one asked for, in one process.
set -u
py=${PYTHON:-python3}
for arg in "$@"; do
    case $arg in
        -m | -m* | -n | -n* | --numprocesses* | -p | --pdb | -s | --capture=no) exec "$py" -m pytest "$@" ;;
    esac
done
# Each worker's temporary folders sit one level deeper (popen-gwN/): a short base keeps the
# paths the refusals quote whole, as they are in one process (they shorten past 80 characters).
base=$(mktemp -d /tmp/lt.XXXXXX)
trap 'rm -rf "$base"' EXIT
"$py" -m pytest -n "${PYTEST_WORKERS:-auto}" --dist loadgroup --durations=40 --basetemp="$base/a" -m "not audio_device" "$@"
rest=$?
echo "-- the sound-device tests, alone (pytest -m audio_device):"
# Unless a test path is given, only the files that name the marker are collected (the whole
# suite's collection is most of this pass's time); with a path the run is the one asked for.
paths=0
for arg in "$@"; do
    [ -e "${arg%%::*}" ] && paths=1
done
if [ "$paths" -eq 0 ]; then
    mapfile -t sound_files < <(grep -rl --include='test_*.py' 'audio_device' tests | sort)
    "$py" -m pytest --basetemp="$base/s" -m audio_device "$@" "${sound_files[@]}"
else
    "$py" -m pytest --basetemp="$base/s" -m audio_device "$@"
fi
sound=$?
# pytest's 5 is "no test collected": fine for one pass when the other ran some, not for both.
if [ "$rest" -ne 0 ] && [ "$rest" -ne 5 ]; then exit "$rest"; fi
if [ "$sound" -ne 0 ] && [ "$sound" -ne 5 ]; then exit "$sound"; fi
if [ "$rest" -eq 5 ] && [ "$sound" -eq 5 ]; then exit 5; fi
exit 0
