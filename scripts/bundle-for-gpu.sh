#!/usr/bin/env bash
# bundle-for-gpu.sh BUILD_DIR OUT_DIR: copies fla-bench and the test binaries with the shared libraries a bare
# GPU machine may lack (Google Benchmark; liblzma, which reads .json.xz results) into OUT_DIR and
# OUT_DIR/lib, where the binaries' rpath ($ORIGIN/lib) finds them. glibc, libstdc++ and every CUDA library
# are left to the GPU machine's own.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: bundle-for-gpu.sh BUILD_DIR OUT_DIR" >&2; exit 2; }
build=$1 out=$2
# An object ninja recorded with no dependencies (a compile whose depfile was lost, e.g. one run by hand beside
# ninja) is never rebuilt when its headers change: a binary linked from it measures old code silently. Every
# object built with a depfile lists at least its own source.
if [ -f "$build/build.ninja" ]; then
  command -v ninja > /dev/null ||
    { echo "bundle-for-gpu.sh: $build is a ninja build but ninja is not on PATH" \
      "(it lists the objects' dependencies)" >&2; exit 1; }
  stale=$(ninja -C "$build" -t deps | awk '/#deps 0,/ {sub(":", "", $1); print $1}')
  if [ -n "$stale" ]; then
    echo "bundle-for-gpu.sh: ninja has no header dependencies for $(echo "$stale" | wc -l) object(s), so they may" \
      "be stale (first: $(echo "$stale" | head -n 1)); touch their sources and build again" >&2
    exit 1
  fi
fi
mkdir -p "$out/lib"
for exe in "$build/fla-bench" "$build/tests/flabench_tests" "$build/tests/flabench_cli_tests" \
  "$build/tests/flabench_wgmma_tests"; do
  cp -f "$exe" "$out/"
  ldd "$exe" | awk '/libbenchmark|liblzma/ {print $3}' | xargs -r -I{} cp -fL {} "$out/lib/"
done
echo "bundled into $out: $(ls "$out" | tr '\n' ' ')lib/: $(ls "$out/lib" | tr '\n' ' ')"
