#!/usr/bin/env bash
# A kernel candidate's whole device run in one call: the numerics battery on NEW, its errors set beside an
# earlier battery's (check-error-compare.py: bit for bit where only control flow changed), then an A/B of BASE
# against NEW in alternating rounds (ab-rounds.sh). Each step runs even when one before it failed, so one device
# call yields everything, and every file is kept in OUT_DIR:
#   check-new.json.xz, check-new.log     NEW's battery (check-base.* too when REFERENCE is 'base')
#   check-errors.txt                     check-error-compare.py REFERENCE check-new
#   ab/, ab-out.txt                      the A/B rounds and their compare --rounds table
#
# usage: [CHECK_ARGS='fla-bench options ...'] scripts/candidate.sh BASE NEW OUT_DIR ROUNDS CHECK_FILTER REFERENCE
#        [fla-bench run options for the A/B...]
#   REFERENCE: an earlier battery's result file (.json or .json.xz) over the same CHECK_FILTER, or 'base' to run
#   BASE's battery here first (about as long as NEW's). CHECK_ARGS adds options to the batteries, e.g. --device.
#   e.g. scripts/candidate.sh v60/fb v61/fb s92 2 '/(gla|gsa)/(chunk|fused_recurrent)/' v60-check.json.xz
#          --preset peer --filter '^gla/chunk/fwdbwd/bf16/' --min-time 0.1 --no-check
# Exit status: 0 when every step ran clean (no failed check case, the errors compared, the A/B timed); 1 after
# naming each step that did not; 2 on bad arguments.
set -uo pipefail

here=$(dirname "$0")
usage() {
  echo "usage: $0 BASE NEW OUT_DIR ROUNDS CHECK_FILTER REFERENCE [fla-bench run options...]" >&2
  exit 2
}
[ $# -ge 6 ] || usage
base=$1 new=$2 out=$3 rounds=$4 check_filter=$5 reference=$6
shift 6
for binary in "$base" "$new"; do
  [ -x "$binary" ] || { echo "candidate.sh: $binary is not an executable fla-bench" >&2; exit 2; }
done
[ "$reference" = base ] || [ -f "$reference" ] ||
  { echo "candidate.sh: REFERENCE must be a check result file or 'base', not '$reference'" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "candidate.sh: ROUNDS must be a positive whole number, not '$rounds'" >&2; exit 2; }
read -r -a check_args <<< "${CHECK_ARGS:-}"
mkdir -p "$out" || exit 1

failed=()
# battery SIDE BINARY: SIDE's check over CHECK_FILTER, kept compressed (a battery's JSON is tens of MB).
battery() {
  local side=$1 binary=$2
  "$binary" "${check_args[@]}" --filter "$check_filter" check --out "$out/check-$side.json" > "$out/check-$side.log" 2>&1
  local status=$?
  tail -n 2 "$out/check-$side.log"
  [ $status -eq 0 ] || failed+=("$side's battery (exit $status; $out/check-$side.log)")
  [ -f "$out/check-$side.json" ] && xz -f -T0 "$out/check-$side.json"
}

if [ "$reference" = base ]; then
  battery base "$base"
  reference=$out/check-base.json.xz
fi
battery new "$new"
if [ -f "$reference" ] && [ -f "$out/check-new.json.xz" ]; then
  python3 "$here/check-error-compare.py" "$reference" "$out/check-new.json.xz" > "$out/check-errors.txt" 2>&1 ||
    failed+=("the error comparison ($out/check-errors.txt)")
  sed -n '1,3p' "$out/check-errors.txt"
else
  failed+=("the error comparison (no battery result to compare)")
fi

bash "$here/ab-rounds.sh" "$base" "$new" "$out/ab" "$rounds" "$@" > "$out/ab-out.txt" 2>&1 ||
  failed+=("the A/B ($out/ab-out.txt)")
cat "$out/ab-out.txt"

for step in "${failed[@]}"; do
  echo "candidate.sh: failed: $step" >&2
done
[ ${#failed[@]} -eq 0 ]
