# The set-up every device call of fla-bench shares, sourced from the repository root on the device machine by
# the call's own script (results/baselines/<gpu>/stop*/...sh):
#   source scripts/device-call.sh BUNDLE OUT_NAME [FILE...] || exit 2
# BUNDLE is a folder ../shared/tools/bundle-for-device made, carried with the call: fla-bench (or
# fla-bench.xz, as it is carried to stay under the carry limit) and lib/. This unpacks the binary once into
# /tmp/<BUNDLE's name>/fb and sets `fb` to it and LD_LIBRARY_PATH to its libraries; makes R=/tmp/out-OUT_NAME
# holding the calling script (as device-script.sh) and the FILEs (an A/B build's diff, ...); and defines
# `pack`, which writes R to $OUT/OUT_NAME.tar.xz: called after each step, so that what a call measured comes
# back even when a later step runs past the call's limit. A missing bundle, binary or $OUT: one line on stderr
# and status 2.

device_call_fail() {
  echo "device-call.sh: $1" >&2
  return 2
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
  export LD_LIBRARY_PATH=$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fb=$dir/fb
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

if [ $# -lt 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
  device_call_fail "usage: source scripts/device-call.sh BUNDLE OUT_NAME [FILE...]"
else
  device_call_setup "$1" "$2" "${BASH_SOURCE[1]:-}" "${@:3}"
fi
