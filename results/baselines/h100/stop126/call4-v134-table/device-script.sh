#!/bin/bash
# Stop 126, call 4 (warm machine): issue 4's table on version 134 (the landing candidate).
set -u
source scripts/device-call.sh build-part-s125/v134 call4-v134-table || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version
issue4_table "$(dirname "$0")/peer-fla-h100.md" 150
