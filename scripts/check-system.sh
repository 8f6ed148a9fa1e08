#!/usr/bin/env bash
# Says which system libraries the lab needs and how to install them (Debian/Ubuntu names).
# Exit 1 when Qt cannot start; PortAudio and a CJK font are only warned about, since the
# lab falls back to a virtual audio clock and still runs without them.
set -u
have_lib() { ldconfig -p 2>/dev/null | grep -q "$1"; }
missing=()
for pair in "libEGL.so.1:libegl1" "libGL.so.1:libgl1" "libxkbcommon.so.0:libxkbcommon0" \
            "libfontconfig.so.1:libfontconfig1" "libdbus-1.so.3:libdbus-1-3"; do
  have_lib "${pair%%:*}" || missing+=("${pair##*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Qt needs system libraries that are missing: ${missing[*]}" >&2
  echo "  install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
if ! have_lib libportaudio.so.2; then
  echo "note: PortAudio (libportaudio2) is missing: the audio panel will use a virtual clock, not your speakers." >&2
  echo "  install it with: sudo apt-get install -y libportaudio2" >&2
fi
if command -v fc-list >/dev/null && [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
  echo "note: no Chinese font found: the book's terms will show as boxes." >&2
  echo "  install one with: sudo apt-get install -y fonts-wqy-microhei" >&2
fi
exit 0
