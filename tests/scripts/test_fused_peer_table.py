#!/usr/bin/env python3
"""Tests of scripts/fused-peer-table.py (issue 3's speed table) on small fixture files, run as a user runs it.

Run from anywhere:  python3 tests/scripts/test_fused_peer_table.py
"""

import os
import unittest

from peer_table_test import PeerTableTest

PEER = """| op | variant | mode | B,T,H,D | FLA ms | byte floor ms | x floor |
|---|---|---|---|---|---|---|
| gla | fused_recurrent | fwd | 8,1024,8,64 | 2.000 | 0.014 | 130.5 |
| gla | fused_recurrent | fwdbwd | 8,1024,8,64 | 6.000 | 0.042 | 140.3 |
| gla | chunk | fwd | 8,1024,8,64 | 0.700 | 0.014 | 50.0 |
| rwkv7 | fused_recurrent | fwd | 8,1024,8,64 | 1.000 | 0.020 | 54.9 |
| rwkv7 | fused_recurrent | fwdbwd | 8,1024,8,64 | none: no backward | | |
| gla | fused_recurrent | fwd | 4,4096,16,64 | 7.000 | 0.056 | 129.5 |
"""


def case(op, mode, median_ms, variant="fused_recurrent", dtype="bf16"):
    return {"name": f"{op}/{variant}/{mode}/{dtype}/B8-T1024-H8-K64-V64", "op": op, "variant": variant,
            "mode": mode, "dtype": dtype, "status": "ok", "axes": {"B": 8, "T": 1024, "H": 8, "K": 64, "V": 64},
            "timing": {"median_ms": median_ms}}


class FusedPeerTable(PeerTableTest):
    SCRIPT = "fused-peer-table.py"
    PEER = PEER

    def test_targets_against_fla_and_against_our_own_forward(self):
        done = self.run_table([case("gla", "fwd", 0.25), case("gla", "fwdbwd", 1.5),
                               case("gla", "fwd", 0.01, variant="chunk"), case("gla", "fwd", 0.01, dtype="fp32"),
                               case("rwkv7", "fwd", 0.5), case("rwkv7", "fwdbwd", 1.4)])
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = self.rows(done.stdout)
        # forward: 5x FLA's 2.0 is 0.4; 0.25 ms over 1024 tokens is 244 ns a step (the chunk and fp32 cases
        # are not the bf16 fused_recurrent ones)
        self.assertEqual(rows[("gla", "fwd", "8,1024,8,64")], ["0.250", "2.000", "8.00", "244", "0.400", "yes"])
        # forward+backward: 6.0 / 5 = 1.2, and 1.5 misses it
        self.assertEqual(rows[("gla", "fwdbwd", "8,1024,8,64")][-2:], ["1.200", "no"])
        # rwkv7's backward against 3x our own forward: 1.4 < 1.5
        self.assertEqual(rows[("rwkv7", "fwdbwd", "8,1024,8,64")],
                         ["1.400", "none", "(2.80x our fwd)", "1367", "1.500", "yes"])
        # the anchors' shape the run lacks is left out
        self.assertEqual(len(rows), 4)
        self.assertIn("targets met: 2 of 4", done.stdout)

    def test_refuses_a_run_without_fused_cases_and_bad_arguments(self):
        done = self.run_table([case("gla", "fwd", 0.01, variant="chunk")])
        self.assertEqual(done.returncode, 2)
        self.assertIn("no timed bf16 fused_recurrent case", done.stderr)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        done = self.run_script(os.path.join(self.dir.name, "absent.json"), self.peer)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        done = self.run_script()
        self.assertEqual(done.returncode, 2)
        self.assertIn("usage", done.stderr)


if __name__ == "__main__":
    unittest.main()
