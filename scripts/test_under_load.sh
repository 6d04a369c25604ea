#!/usr/bin/env bash
# make test RUNS times in a row (default 3) in a fresh clone of this checkout's HEAD, with every core kept busy
# by a spinning process for the whole time: the way to find a test that fails only when the machine is loaded.
# Usage: scripts/test_under_load.sh [RUNS] [CLONE_DIR]   (prints one line a run: its exit status, seconds and summary)
set -uo pipefail
runs="${1:-3}"
clone="${2:-$(mktemp -d)/simstudy}"
git clone -q "$(git rev-parse --show-toplevel)" "$clone" || exit 2
cd "$clone" || exit 2
spinners=()
for _ in $(seq "$(nproc)"); do
  python3 -c "while True: pass" &
  spinners+=($!)
done
trap 'kill "${spinners[@]}" 2>/dev/null' EXIT
failed=0
for i in $(seq "$runs"); do
  start=$(date +%s)
  make test >"run-$i.log" 2>&1
  rc=$?
  [ "$rc" = 0 ] || failed=1
  echo "run $i: exit $rc, $(( $(date +%s) - start )) s, $(tail -n 1 "run-$i.log")"
done
echo "logs in $clone/run-*.log"
exit "$failed"
