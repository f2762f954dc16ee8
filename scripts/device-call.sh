# The set-up every device call of fla-bench shares, sourced from the repository root on the device machine by
# the call's own script (results/baselines/<gpu>/stop*/...sh):
#   source scripts/device-call.sh BUNDLE OUT_NAME [FILE...] || exit 2
# BUNDLE is a folder ../shared/tools/bundle-for-device made, carried with the call: fla-bench (or
# fla-bench.xz, as it is carried to stay under the carry limit) and lib/. This unpacks the binary once into
# /tmp/<BUNDLE's name>/fb and sets `fb` to it and LD_LIBRARY_PATH to its libraries; makes R=/tmp/out-OUT_NAME
# holding the calling script (as device-script.sh) and the FILEs (an A/B build's diff, ...); and defines
# `pack`, which writes R to $OUT/OUT_NAME.tar.xz: called after each step, so that what a call measured comes
# back even when a later step runs past the call's limit; and the checks a candidate build gets (battery,
# sanitizers, issue4_table: below). `unpack_build BUNDLE` does the same unpacking for another build a call
# runs and prints its binary's path. A missing bundle, binary or $OUT: one line on stderr and status 2.

device_call_fail() {
  echo "device-call.sh: $1" >&2
  return 2
}

# BUNDLE's fla-bench unpacked once into /tmp/<BUNDLE's name>/fb, its lib/ beside it; prints that path. The
# set-up's build, and any other a call runs (an A/B's base): base=$(unpack_build BUNDLE) || exit 2
unpack_build() {
  local bundle=${1%/}
  [ -d "$bundle" ] || { device_call_fail "no bundle folder $bundle (carry it with the call)"; return; }
  local dir=/tmp/$(basename "$bundle")
  mkdir -p "$dir" 2> /dev/null || { device_call_fail "cannot make $dir"; return; }
  if [ ! -x "$dir/fb" ]; then
    if [ -f "$bundle/fla-bench.xz" ]; then
      xz -dc "$bundle/fla-bench.xz" > "$dir/fb" 2> /dev/null ||
        { device_call_fail "cannot unpack $bundle/fla-bench.xz"; return; }
    elif [ -f "$bundle/fla-bench" ]; then
      cp "$bundle/fla-bench" "$dir/fb" 2> /dev/null ||
        { device_call_fail "cannot copy $bundle/fla-bench"; return; }
    else
      device_call_fail "$bundle has no fla-bench or fla-bench.xz"
      return
    fi
    chmod +x "$dir/fb"
  fi
  [ -d "$bundle/lib" ] && cp -r "$bundle/lib" "$dir/"
  echo "$dir/fb"
}

# BUNDLE OUT_NAME CALLER [FILE...]
device_call_setup() {
  local bundle=${1%/} name=$2 caller=$3
  shift 3
  [ -d "$bundle" ] || { device_call_fail "no bundle folder $bundle (carry it with the call)"; return; }
  if [ -z "${OUT:-}" ] || [ ! -d "$OUT" ]; then
    device_call_fail "\$OUT is not a folder: not on the device machine?"
    return
  fi
  fb=$(unpack_build "$bundle") || return 2
  export LD_LIBRARY_PATH=$(dirname "$fb")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  R=/tmp/out-$name
  DEVICE_CALL_NAME=$name
  mkdir -p "$R" 2> /dev/null || { device_call_fail "cannot make $R"; return; }
  [ -f "$caller" ] && cp "$caller" "$R/device-script.sh"
  local file
  for file in "$@"; do
    cp "$file" "$R/" 2> /dev/null || { device_call_fail "cannot copy $file beside the results"; return; }
  done
}

pack() {
  tar -cJf "$OUT/$DEVICE_CALL_NAME.tar.xz" -C /tmp "out-$DEVICE_CALL_NAME"
}

# The checks a candidate build gets before it lands, each into R and packed when done (`fb` the build):
#   battery NAME FILTER [BASE_JSON [SECONDS]]  `check --no-long` over FILTER into NAME.json.xz and NAME.log;
#       with BASE_JSON (a check result, .json or .json.xz), scripts/check-error-compare.py's comparison of the
#       two over FILTER into NAME-errors.txt (its first lines printed)
#   sanitizers NAME FILTER [SECONDS]  memcheck, racecheck and synccheck of `check --no-isolate --no-long`
#       over FILTER, each into NAME-TOOL.log (its cases and summary lines printed)
#   issue4_table PEER_MD [SECONDS]  issue 4's table (gla, rwkv6 and simple_gla chunk bf16 at C = 64, the
#       peer preset) into issue4-chunk.json.xz and scripts/chunk-peer-table.py's issue4-chunk-peer-table.md,
#       only where the GPU is an H100 (the peer anchors' GPU)
# and what a kernel is bound by:
#   ncu_kernel NAME KERNEL_REGEX SECONDS FLA_BENCH_ARGS...  ncu's full set with the source of one launch of a
#       kernel matching KERNEL_REGEX (the first, or the one after NCU_SKIP matching launches) in one pass of
#       `fla-bench FLA_BENCH_ARGS --profile-once --no-check`: NAME-ncu.log, NAME-details.txt.xz (its
#       headline lines printed), NAME-source.csv.gz (the SASS source page) and scripts/ncu-source-regions.py's
#       NAME-regions.txt
battery() {
  local name=$1 filter=$2 base=${3:-} seconds=${4:-120}
  timeout "$seconds" "$fb" check --no-long --filter "$filter" --out "$R/$name.json" > "$R/$name.log" 2>&1
  echo "$name rc $?"
  grep -E "cases:" "$R/$name.log" | tail -1
  [ -f "$R/$name.json" ] && xz -T0 -f "$R/$name.json"
  if [ -n "$base" ] && [ -f "$R/$name.json.xz" ]; then
    python3 scripts/check-error-compare.py "$base" "$R/$name.json.xz" --filter "$filter" > "$R/$name-errors.txt" 2>&1
    head -5 "$R/$name-errors.txt"
  fi
  pack
}

sanitizers() {
  local name=$1 filter=$2 seconds=${3:-60} tool
  for tool in memcheck racecheck synccheck; do
    timeout "$seconds" compute-sanitizer --tool $tool --print-limit 10 "$fb" check --no-isolate --no-long \
      --filter "$filter" --out "$R/sanitized.json" > "$R/$name-$tool.log" 2>&1
    echo "$tool rc $?"
    grep -E "cases:|SUMMARY" "$R/$name-$tool.log" | head -3
    rm -f "$R/sanitized.json"
    pack
  done
}

issue4_table() {
  local peer=$1 seconds=${2:-100}
  nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100 || { echo "issue 4's table: not an H100"; return 0; }
  timeout "$seconds" "$fb" --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=64 --preset peer \
    --min-time 0.15 --min-samples 5 --out "$R/issue4-chunk.json" > "$R/issue4-chunk.log" 2>&1
  echo "table rc $?"
  [ -f "$R/issue4-chunk.json" ] && xz -T0 -f "$R/issue4-chunk.json"
  python3 scripts/chunk-peer-table.py "$R/issue4-chunk.json.xz" "$peer" > "$R/issue4-chunk-peer-table.md" 2>&1
  grep -E "met:" "$R/issue4-chunk-peer-table.md"
  pack
}

ncu_kernel() {
  local name=$1 kernel=$2 seconds=$3
  shift 3
  timeout "$seconds" ncu --set full --import-source yes -k "regex:$kernel" --launch-skip "${NCU_SKIP:-0}" \
    --launch-count 1 -o "/tmp/$name" "$fb" "$@" --profile-once --no-check --out "/tmp/$name.json" \
    > "$R/$name-ncu.log" 2>&1
  echo "ncu $name rc $?"
  ncu --import "/tmp/$name.ncu-rep" --page source --csv --print-source sass > "$R/$name-source.csv" 2>&1
  gzip -9f "$R/$name-source.csv"
  ncu --import "/tmp/$name.ncu-rep" --page details > "$R/$name-details.txt" 2>&1
  grep -E "Duration|DRAM Throughput|Issue Slots Busy|Registers Per Thread|Achieved Occupancy|L2 Hit Rate|Warp Cycles Per Issued" \
    "$R/$name-details.txt" | head -12
  xz -T0 -f "$R/$name-details.txt"
  python3 scripts/ncu-source-regions.py "$R/$name-source.csv.gz" > "$R/$name-regions.txt" 2>&1
  head -8 "$R/$name-regions.txt"
  pack
}

if [ $# -lt 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
  device_call_fail "usage: source scripts/device-call.sh BUNDLE OUT_NAME [FILE...]"
else
  device_call_setup "$1" "$2" "${BASH_SOURCE[1]:-}" "${@:3}"
fi
