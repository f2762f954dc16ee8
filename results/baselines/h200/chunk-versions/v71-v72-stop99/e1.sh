#!/bin/bash
# Stop 99 call E1: as a.sh (main's fla-bench to /tmp/basefb), for e2.sh on the same warm machine.
bash devrun/a.sh
