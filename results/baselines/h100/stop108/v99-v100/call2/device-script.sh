#!/bin/bash
# Stop 108's second call, on the same warm H100 right after call1 (the bundle build-part-s108/v100ab already
# unpacked there), run inline as the device tool's command: the forward's A/Bs that split call1's result
# between its two versions: 99 against 98 (FLA_AB_STATE=99 against =98) and 100 against 99.
source scripts/device-call.sh build-part-s108/v100ab v100b || exit 2
A='--preset peer --filter ^simple_gla/chunk/fwd/bf16/ --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
for pair in "98 99" "99 100"; do
  set -- $pair
  BASE_ENV="FLA_AB_STATE=$1" NEW_ENV="FLA_AB_STATE=$2" timeout 80 bash scripts/ab-rounds.sh $fb $fb $R/ab-$2-$1 2 $A \
    > $R/ab-$2-$1-out.txt 2>&1
  echo "ab $2 against $1 rc $?"; grep -E "^simple_gla|cases over" $R/ab-$2-$1-out.txt; pack
done
