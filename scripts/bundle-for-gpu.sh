#!/usr/bin/env bash
# bundle-for-gpu.sh BUILD_DIR OUT_DIR: copies fla-bench and the test binaries with the shared libraries a bare
# GPU machine may lack (Google Benchmark; liblzma, which reads .json.xz results) into OUT_DIR and
# OUT_DIR/lib, where the binaries' rpath ($ORIGIN/lib) finds them. glibc, libstdc++ and every CUDA library
# are left to the GPU machine's own.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: bundle-for-gpu.sh BUILD_DIR OUT_DIR" >&2; exit 2; }
build=$1 out=$2
mkdir -p "$out/lib"
for exe in "$build/fla-bench" "$build/tests/flabench_tests" "$build/tests/flabench_cli_tests"; do
  cp -f "$exe" "$out/"
  ldd "$exe" | awk '/libbenchmark|liblzma/ {print $3}' | xargs -r -I{} cp -fL {} "$out/lib/"
done
echo "bundled into $out: $(ls "$out" | tr '\n' ' ')lib/: $(ls "$out/lib" | tr '\n' ' ')"
