#!/usr/bin/env bash
# An A/B test of two fla-bench builds on one machine: BASE and NEW timed alternately with the same run options
# (base, new, base, new, ...: clocks and neighbours drift over minutes, so each round's pair is compared on its
# own), every run's JSON and log kept in OUT_DIR, then `compare --rounds` over them: rounds.txt, rounds.json.
# A verdict counts when every round agrees (README, "compare").
#
# usage: [BASE_ENV='VAR=value ...'] [NEW_ENV='VAR=value ...'] scripts/ab-rounds.sh BASE NEW OUT_DIR ROUNDS
#        [fla-bench run options...]
#   e.g. scripts/ab-rounds.sh base/fla-bench build/fla-bench ab 3 --preset peer --filter '^gla/chunk/' --no-check
# BASE_ENV and NEW_ENV set variables for that side's runs only: one binary whose candidate sits behind a
# temporary switch is timed against itself, e.g.
#   BASE_ENV=FLA_AB_X=0 NEW_ENV=FLA_AB_X=1 scripts/ab-rounds.sh fb fb ab 2 --preset peer --no-check
# Exit status: compare's (0), or 1 when a run failed or left no result file (every run measured is kept, and
# the whole rounds before it are compared).
set -uo pipefail

usage() {
  echo "usage: $0 BASE NEW OUT_DIR ROUNDS [fla-bench run options...]" >&2
  exit 2
}
[ $# -ge 4 ] || usage
base=$1 new=$2 out=$3 rounds=$4
shift 4
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ab-rounds.sh: ROUNDS must be a positive whole number, not '$rounds'" >&2; exit 2; }
for binary in "$base" "$new"; do
  [ -x "$binary" ] || { echo "ab-rounds.sh: $binary is not an executable fla-bench" >&2; exit 2; }
done
read -r -a base_env <<< "${BASE_ENV:-}"
read -r -a new_env <<< "${NEW_ENV:-}"
for setting in "${base_env[@]}" "${new_env[@]}"; do
  [[ $setting =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] ||
    { echo "ab-rounds.sh: BASE_ENV and NEW_ENV take VAR=value words, not '$setting'" >&2; exit 2; }
done
mkdir -p "$out" || exit 1

pairs=()
for ((r = 1; r <= rounds; ++r)); do
  for side in base new; do
    binary=$base settings=("${base_env[@]}")
    [ "$side" = new ] && binary=$new settings=("${new_env[@]}")
    json="$out/r$r-$side.json"
    env "${settings[@]}" "$binary" --out "$json" "$@" > "$out/r$r-$side.log" 2>&1
    status=$?
    if [ $status -ne 0 ] || [ ! -f "$json" ]; then
      echo "ab-rounds.sh: round $r's $side run failed (exit $status; $out/r$r-$side.log)" >&2
      whole=$((2 * (r - 1)))  # this round's base, if it ran, has no pair
      if [ $whole -gt 0 ]; then  # by NEW (an older BASE may lack --rounds), or by BASE where NEW is what fails
        for binary in "$new" "$base"; do
          "$binary" compare --rounds "${pairs[@]:0:$whole}" --out "$out/rounds.json" > "$out/rounds.txt" 2>&1 && break
        done
      fi
      exit 1
    fi
    pairs+=("$json")
  done
  echo "round $r of $rounds timed"
done
"$new" compare --rounds "${pairs[@]}" --out "$out/rounds.json" > "$out/rounds.txt"
status=$?
cat "$out/rounds.txt"
exit $status
