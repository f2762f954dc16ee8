#!/usr/bin/env python3
"""Tests of scripts/chunk-peer-table.py (issue 4's speed table) on small fixture files, run as a user runs it.

Run from anywhere:  python3 tests/scripts/test_chunk_peer_table.py
"""

import json
import lzma
import os
import unittest

from peer_table_test import PeerTableTest

PEER = """| op | variant | mode | B,T,H,D | FLA ms | byte floor ms | x floor |
|---|---|---|---|---|---|---|
| gla | chunk | fwd | 8,1024,8,64 | 0.900 | 0.100 | 9.0 |
| gla | chunk | fwdbwd | 8,1024,8,64 | 3.000 | 0.200 | 15.0 |
| gla | fused_recurrent | fwd | 8,1024,8,64 | 9.000 | 0.100 | 90.0 |
| simple_gla | chunk | fwdbwd | 8,1024,8,64 | refused on Hopper + Triton 3.6 | | |
| gla | chunk | fwd | 4,4096,16,64 | 1.000 | 0.100 | 10.0 |
| rwkv7 | chunk | fwd | 8,1024,8,64 | 0.300 | 0.100 | 3.0 |
| rwkv7 | chunk | fwdbwd | 8,1024,8,64 | 0.600 | 0.100 | 6.0 |
"""


def case(op, mode, chunk_size, median_ms, variant="chunk", floor_bytes=6.0e8):
    return {"name": f"{op}/{variant}/{mode}/bf16/B8-T1024-H8-K64-V64/C{chunk_size}", "op": op, "variant": variant,
            "mode": mode, "dtype": "bf16", "status": "ok",
            "axes": {"B": 8, "T": 1024, "H": 8, "K": 64, "V": 64, "chunk_size": chunk_size},
            "timing": {"median_ms": median_ms}, "derived": {"floor_bytes": floor_bytes}}


class ChunkPeerTable(PeerTableTest):
    SCRIPT = "chunk-peer-table.py"
    PEER = PEER

    def test_best_chunk_size_targets_and_verdicts(self):
        done = self.run_table([case("gla", "fwd", 32, 0.25), case("gla", "fwd", 64, 0.19),
                               case("gla", "fwdbwd", 32, 1.10), case("gla", "fwd", 32, 0.01, variant="naive"),
                               case("simple_gla", "fwdbwd", 32, 2.0, floor_bytes=3.0e8)])
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = self.rows(done.stdout)
        # forward: target max(2 F, P / 3) = max(0.2, 0.3) = 0.3; the best of C32 and C64 is C64 (the naive
        # case is not the chunk variant's)
        self.assertEqual(rows[("gla", "fwd", "8,1024,8,64")],
                         ["0.190 (C64)", "- / 0.250 / 0.190", "0.9", "0.100", "1.9", "4.74", "0.300", "yes"])
        # forward+backward: max(3 F, P / 3) = max(0.6, 1.0) = 1.0, and 1.1 misses it
        self.assertEqual(rows[("gla", "fwdbwd", "8,1024,8,64")][-2:], ["1.000", "no"])
        # FLA refuses: the floor is the run's own at 3.0 TB/s (3e8 bytes: 0.1 ms) and the target 3 F
        self.assertEqual(rows[("simple_gla", "fwdbwd", "8,1024,8,64")][2:], ["refused", "0.100", "20.0", "-",
                                                                           "0.300", "no"])
        # the anchors' shapes the run lacks are left out, and the fused_recurrent row is not a chunk row
        self.assertEqual(len(rows), 3)
        self.assertIn("targets met: 1 of 3", done.stdout)

    def test_rwkv7_takes_issue_5s_multiples_of_the_floor(self):
        done = self.run_table([case("rwkv7", "fwd", 64, 0.26), case("rwkv7", "fwdbwd", 64, 0.39)])
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = self.rows(done.stdout)
        # forward: max(2.5 F, P / 3) = max(0.25, 0.1) = 0.25, missed by 0.26 (issue 4's 2 F would give 0.2)
        self.assertEqual(rows[("rwkv7", "fwd", "8,1024,8,64")][-2:], ["0.250", "no"])
        # forward+backward: max(4 F, P / 3) = 0.4, met by 0.39 (issue 4's 3 F would give 0.3: not met)
        self.assertEqual(rows[("rwkv7", "fwdbwd", "8,1024,8,64")][-2:], ["0.400", "yes"])

    def test_reads_an_xz_compressed_run(self):
        cases = [case("gla", "fwd", 32, 0.25), case("gla", "fwd", 64, 0.19)]
        packed = os.path.join(self.dir.name, "run.json.xz")
        with lzma.open(packed, "wt") as out:
            json.dump({"cases": cases}, out)
        done = self.run_script(packed, self.peer)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, self.run_table(cases).stdout)

    def test_refuses_a_run_without_chunk_cases_and_bad_arguments(self):
        done = self.run_table([case("gla", "fwd", 32, 0.01, variant="naive")])
        self.assertEqual(done.returncode, 2)
        self.assertIn("no timed chunk case", done.stderr)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        done = self.run_script(os.path.join(self.dir.name, "absent.json"), self.peer)
        self.assertEqual(done.returncode, 2)
        self.assertIn("absent.json", done.stderr)
        done = self.run_script()
        self.assertEqual(done.returncode, 2)
        self.assertIn("usage", done.stderr)


if __name__ == "__main__":
    unittest.main()
