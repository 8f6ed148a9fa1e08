#!/usr/bin/env bash
# Checks the system libraries the lab needs (scripts/system-packages.txt). When something is
# missing and we may install (root, or password-less sudo, with apt-get), installs it and
# goes on, so `make run` / `make test` are the whole set-up; otherwise says what is missing
# and how to install it. Exit 1 only when Qt cannot start.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
have() {
  case "$1" in
    python:venv) "${PYTHON:-python3}" -c "import ensurepip, venv" 2>/dev/null ;;
    font:zh) ! command -v fc-list >/dev/null || [ -n "$(fc-list :lang=zh 2>/dev/null)" ] ;;
    *) ldconfig -p 2>/dev/null | grep -q "$1" ;;
  esac
}
missing_required=(); missing_recommended=()
while read -r level file package; do
  case "$level" in required|recommended) ;; *) continue ;; esac
  have "$file" && continue
  if [ "$level" = required ]; then missing_required+=("$package"); else missing_recommended+=("$package"); fi
done < "$here/system-packages.txt"
missing=("${missing_required[@]}" "${missing_recommended[@]}")
[ ${#missing[@]} -eq 0 ] && exit 0

sudo_cmd=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo_cmd="sudo -n"; fi
if command -v apt-get >/dev/null && { [ "$(id -u)" -eq 0 ] || [ -n "$sudo_cmd" ]; }; then
  echo "installing system packages: ${missing[*]}" >&2
  if $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null \
     && $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null; then
    exit 0
  fi
  echo "apt-get could not install them; see below." >&2
fi
if [ ${#missing_required[@]} -gt 0 ]; then
  echo "Qt needs system libraries that are missing: ${missing_required[*]}" >&2
  echo "  install them with: sudo apt-get install -y ${missing_required[*]}" >&2
fi
for package in "${missing_recommended[@]}"; do
  case "$package" in
    libportaudio2) echo "note: PortAudio (libportaudio2) is missing: the audio panel will use a virtual clock, not your speakers." >&2 ;;
    fonts-wqy-microhei) echo "note: no Chinese font found: the book's terms will show as boxes." >&2 ;;
  esac
  echo "  install it with: sudo apt-get install -y $package" >&2
done
[ ${#missing_required[@]} -eq 0 ]
