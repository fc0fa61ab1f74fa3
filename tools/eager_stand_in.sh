#!/bin/sh
# How many tests of tests/capture and tests/stitch pass with minidynamo.compile replaced by an eager stand-in
# (tests/conftest.py: --eager-stand-in). Those tests cannot tell capture from no capture (issue 24: at most
# 10% may pass). Usage: tools/eager_stand_in.sh [python] [pytest args...]; prints pytest's summary and the
# passing items' ids to eager_stand_in_passed.txt in the current folder.
PY=${1:-python}
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/.." || exit 1
PYTHONPATH=$PWD "$PY" -m pytest -q -p no:cacheprovider --eager-stand-in -rA "$@" tests/capture tests/stitch \
    | tee /tmp/eager_stand_in.$$ | tail -1
grep '^PASSED ' /tmp/eager_stand_in.$$ | sed 's/^PASSED //' > "$OLDPWD/eager_stand_in_passed.txt"
echo "passed under the stand-in: $(wc -l < "$OLDPWD/eager_stand_in_passed.txt")"
rm -f /tmp/eager_stand_in.$$
