#!/bin/sh
# How many tests of tests/capture and tests/stitch pass with minidynamo.compile replaced by an eager stand-in
# (tests/conftest.py: --eager-stand-in). Those tests cannot tell capture from no capture (issue 24: at most
# 10% may pass). Usage: tools/eager_stand_in.sh [python] [--fallback-stand-in] [pytest args...], e.g.
#   tools/eager_stand_in.sh /work/venvs/full-3.12/bin/python -n 2
# prints pytest's summary and "passed under the stand-in: P of N items (R%)" (N: every item run, errors and
# skips included), and the passing items' ids to eager_stand_in_passed.txt in the current folder.
# --fallback-stand-in instead keeps compile() and makes every capture a whole-frame eager fallback (explain()
# included): what passes then cannot tell capture from a compiled function that never captures a graph.
PY=${1:-python}
[ $# -gt 0 ] && shift
MODE=--eager-stand-in
[ "$1" = "--fallback-stand-in" ] && MODE=$1 && shift
cd "$(dirname "$0")/.." || exit 1
PYTHONPATH=$PWD "$PY" -m pytest -q -p no:cacheprovider "$MODE" -rA "$@" tests/capture tests/stitch \
    > /tmp/eager_stand_in.$$
summary=$(tail -1 /tmp/eager_stand_in.$$)
echo "$summary"
grep '^PASSED ' /tmp/eager_stand_in.$$ | sed 's/^PASSED //' > "$OLDPWD/eager_stand_in_passed.txt"
passed=$(wc -l < "$OLDPWD/eager_stand_in_passed.txt")
total=$(echo "$summary" | tr ',' '\n' | awk '$2 ~ /^(passed|failed|skipped|errors?|xfailed|xpassed)$/ {n += $1} END {print n}')
echo "passed under the stand-in: $passed of $total items ($(awk "BEGIN {printf \"%.1f\", 100 * $passed / $total}")%)"
rm -f /tmp/eager_stand_in.$$
