#!/bin/bash
# CI hook for the real-code corpus (Java): fetches jsoup and commons-codec, then annotates
# all of their main sources and checks the per-test outcomes, the trace and the restore
# (tests/corpus/java.sh) — jsoup in better mode, commons-codec in faster mode. About 6
# minutes on 2 cores. Needs root for apt (as fetch.sh does) and a release build of revy
# (built here unless $REVY names one).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
"$here/fetch.sh" jsoup libcommons-codec-java > /dev/null
if [ -z "${REVY:-}" ]; then
  (cd "$repo" && cargo build --release --quiet --bin revy)
fi
# A smaller trace limit than java.sh's default keeps CI's disk use down (jsoup's suite
# fills 2 GiB); truncation is reported in the summary line.
export MAX_SIZE=${MAX_SIZE:-512MiB}
passed=0; failed=0
for run in "jsoup better" "commons-codec faster"; do
  if "$here/java.sh" $run; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "java corpus: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
