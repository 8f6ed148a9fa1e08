#!/usr/bin/env bash
# Bring the language catalogs up to date (widgets/translations, README "Language"):
#   1. scripts/i18n_strings.py builds every panel offscreen and lists the strings that need a
#      translation into strings_{zh,en}_{lab,param,output}.py (QT_TRANSLATE_NOOP lines);
#   2. pyside6-lupdate merges them into lab_{zh,en}.ts (translations already made are kept;
#      new strings come in unfinished, for Qt Linguist or an editor);
#   3. pyside6-lrelease compiles the .ts into the .qm files the lab loads.
# Step 1 exits 1 while some string has no translation yet; the catalogs are written anyway.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
DIR=widgets/translations
LIST=$(mktemp)
trap 'rm -f "$LIST"' EXIT
QT_QPA_PLATFORM=offscreen "$BIN/python" scripts/i18n_strings.py --write "$@" > "$LIST"
listed=$?
if grep -q '^## .*could not be built' "$LIST"; then
  # A panel that does not build would take its strings out of the catalogs: stop here.
  grep '^##' "$LIST"
  echo "catalogs left as they were: a panel could not be built" >&2
  exit 2
fi
for lang in zh en; do
  target=$([ "$lang" = zh ] && echo zh_CN || echo en)
  "$BIN/pyside6-lupdate" -silent -disable-heuristic similartext "$DIR"/strings_"$lang"_*.py "$DIR/strings_extra.py" -ts "$DIR/lab_$lang.ts" -source-language zh_CN -target-language "$target" || exit 2
  "$BIN/pyside6-lrelease" -silent "$DIR/lab_$lang.ts" -qm "$DIR/lab_$lang.qm" || exit 2
done
grep -v '^wrote ' "$LIST"  # per panel: the strings still without a translation
exit $listed
