#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages fla-bench builds and tests with, when they are missing.
# The CUDA Toolkit (nvcc, cudart, NVTX3 headers; 12.0 or newer) is not a distribution package here: install it
# from NVIDIA first. Runs apt-get through sudo when not root.
set -euo pipefail

packages=(
  cmake                 # >= 3.25
  ninja-build
  g++                   # C++20: g++ 12 or newer
  libbenchmark-dev      # Google Benchmark >= 1.7
  libgtest-dev          # GoogleTest >= 1.12
  nlohmann-json3-dev    # nlohmann/json >= 3.10
  libcli11-dev          # CLI11 >= 2.1
  liblzma-dev           # liblzma >= 5.2: result files read as .json.xz
  python3-jsonschema    # the result-schema test (/usr/bin/python3)
  python3-matplotlib    # fla-bench plot and report (/usr/bin/python3; matplotlib >= 3.6)
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: nvcc not found: install the CUDA Toolkit (12.0 or newer) and put its bin/ on PATH" >&2
  exit 1
fi
