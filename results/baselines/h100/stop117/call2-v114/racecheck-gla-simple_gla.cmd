# The short call after call 2 on the same warm machine (the session's last 158 s of device time): racecheck of
# gla's and simple_gla's many-head C = 64 cases, cut at 110 s (gla's done, simple_gla's to B1-T65).
source scripts/device-call.sh build-part-s117/v114 v114r || exit 2
S='^[a-z]+/(simple_gla|gla)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
timeout 110 compute-sanitizer --tool racecheck --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
  --out $R/racecheck.json > $R/racecheck.log 2>&1
