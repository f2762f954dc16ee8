#!/usr/bin/env python3
"""Tests of scripts/gsa-gla-table.py (issue 10's per-token target: gsa's fused_recurrent within twice gla's) on
small fixture runs, run as a user runs it.

Run from anywhere:  python3 tests/scripts/test_gsa_gla_table.py
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts",
                      "gsa-gla-table.py")


def case(op, mode, dtype, median_ms, B=8, T=1024, H=8, D=64, M=64, G=1, status="ok", variant="fused_recurrent"):
    axes = {"B": B, "T": T, "H": H, "K": D, "V": D}
    if op == "gsa":
        axes.update(M=M, G=G)
    return {"name": f"{op}/{variant}/{mode}/{dtype}/B{B}-T{T}-H{H}-K{D}-V{D}", "op": op, "variant": variant,
            "mode": mode, "dtype": dtype, "status": status, "axes": axes, "timing": {"median_ms": median_ms}}


class GsaGlaTable(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def run_table(self, cases):
        path = os.path.join(self.dir.name, "run.json")
        with open(path, "w") as out:
            json.dump({"cases": cases}, out)
        return self.run_script(path)

    def grid(self, text):
        """{row label: [cells]} of the markdown grid."""
        return {line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[2:-1]]
                for line in text.splitlines() if line.startswith("| ") and not line.startswith("| mode")}

    def test_ratios_marks_and_count(self):
        done = self.run_table([
            case("gsa", "fwdbwd", "bf16", 0.9), case("gla", "fwdbwd", "bf16", 0.4),  # 2.25: over
            case("gsa", "fwd", "bf16", 0.3), case("gla", "fwd", "bf16", 0.15),  # 2.00: on the line, not over
            case("gsa", "fwd", "bf16", 2.0, B=1, T=24576, H=16), case("gla", "fwd", "bf16", 1.25, B=1, T=24576, H=16),
            case("gsa", "fwd", "fp32", 0.5, G=4),  # grouped queries: not gla's state pair, left out
            case("gsa", "fwd", "fp16", 0.5), case("gla", "fwd", "fp16", 0.1, status="failed"),  # no gla time
            case("gla", "fwd", "bf16", 0.1, variant="chunk"),  # another variant
        ])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("| mode, dtype | 8,1024,8,64 | 1,24576,16,64 |", done.stdout)
        grid = self.grid(done.stdout)
        self.assertEqual(list(grid), ["fwd bf16", "fwdbwd bf16"])  # forward first
        self.assertEqual(grid["fwd bf16"], ["0.300 / 0.150 = 2.00", "2.000 / 1.250 = 1.60"])
        self.assertEqual(grid["fwdbwd bf16"], ["0.900 / 0.400 = 2.25 (over)", "-"])
        self.assertIn("over 2: 1 of 3", done.stdout)

    def test_rows_name_the_slot_count_where_the_run_has_several(self):
        done = self.run_table([case("gsa", "fwd", "bf16", 0.3, M=32), case("gsa", "fwd", "bf16", 0.5, M=128),
                               case("gla", "fwd", "bf16", 0.2)])
        self.assertEqual(done.returncode, 0, done.stderr)
        grid = self.grid(done.stdout)
        self.assertEqual(grid["fwd bf16 M32"], ["0.300 / 0.200 = 1.50"])
        self.assertEqual(grid["fwd bf16 M128"], ["0.500 / 0.200 = 2.50 (over)"])

    def test_refuses_a_run_without_pairs_a_bad_file_and_bad_arguments(self):
        done = self.run_table([case("gsa", "fwd", "bf16", 0.3), case("gla", "fwdbwd", "bf16", 0.2)])
        self.assertEqual(done.returncode, 2)
        self.assertIn("has no timed gsa and gla fused_recurrent cases", done.stderr)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        broken = os.path.join(self.dir.name, "broken.json")
        with open(broken, "w") as out:
            out.write("{not json")
        for path in (broken, os.path.join(self.dir.name, "absent.json")):
            done = self.run_script(path)
            self.assertEqual(done.returncode, 2)
            self.assertIn("not a readable result", done.stderr)
            self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        done = self.run_script()
        self.assertEqual(done.returncode, 2)
        self.assertIn("usage", done.stderr)


if __name__ == "__main__":
    unittest.main()
