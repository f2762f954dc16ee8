#!/bin/bash
# Stop 103, third call on the same H100 (after ../tables/device-script.sh, whose racecheck over all three ops'
# fwd and fwd+bwd cases ran past its 110 s while on gla's fwd+bwd, no hazard reported until then): racecheck of
# the build it carried (build-part-s103/v86, main's chunk versions 77-86) over simple_gla's bf16 C = 64 chunk fwd
# and fwd+bwd cases (the gradients kernel versions 84-86 changed, the forward 83's) and gla's and rwkv6's
# forwards (83's role by shuffle). Both: 0 hazards.
fb=/tmp/v86/fb; export LD_LIBRARY_PATH=/tmp/v86/lib
timeout 130 compute-sanitizer --tool racecheck --print-limit 10 $fb check --no-isolate --no-long \
  --filter '^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64' --out /tmp/rc.json \
  > $OUT/rc/racecheck-simple_gla.log 2>&1
timeout 100 compute-sanitizer --tool racecheck --print-limit 10 $fb check --no-isolate --no-long \
  --filter '^[a-z]+/(gla|rwkv6)/chunk/fwd/bf16/B[0-9]-T[0-9]+-H(16|48).*C64' --out /tmp/rc2.json \
  > $OUT/rc/racecheck-gla-rwkv6-fwd.log 2>&1
