#!/usr/bin/env python3
"""Tests of scripts/fla-gsa-peer.py that need no GPU: its table, and its one-line exit where FLA (or PyTorch)
cannot be imported, run as a user runs it.

Run from anywhere:  python3 tests/scripts/test_fla_gsa_peer.py
"""

import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts",
                      "fla-gsa-peer.py")


def load():
    spec = importlib.util.spec_from_file_location("fla_gsa_peer", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FlaGsaPeer(unittest.TestCase):
    def test_table_has_a_row_per_case_with_its_time_or_error(self):
        rows = [dict(variant="chunk", mode="fwd", B=8, T=1024, H=8, D=64, M=64, ms=1.39779),
                dict(variant="fused_recurrent", mode="fwdbwd", B=1, T=24576, H=16, D=64, M=64,
                     error="RuntimeError('out of memory')")]
        lines = load().table(rows)
        self.assertEqual(lines[0], "| variant | mode | B,T,H,D (M = 64) | ms |")
        self.assertEqual(lines[2], "| chunk | fwd | 8,1024,8,64 | 1.398 |")
        self.assertEqual(lines[3], "| fused_recurrent | fwdbwd | 1,24576,16,64 | RuntimeError('out of memory') |")
        self.assertEqual(len(lines), 4)

    def test_without_fla_it_exits_2_with_one_line(self):
        # -S: no site-packages, so neither PyTorch nor an installed FLA can be found, whatever the machine has
        with tempfile.TemporaryDirectory() as empty:
            env = dict(os.environ, PYTHONPATH=empty)
            out = os.path.join(empty, "peer.json")
            run = subprocess.run([sys.executable, "-S", SCRIPT, "--out", out], capture_output=True, text=True,
                                 env=env, cwd=empty)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.assertIn("cannot import FLA's gsa", run.stderr)
        self.assertEqual(run.stdout, "")

    def test_an_unknown_variant_is_refused_before_anything_runs(self):
        run = subprocess.run([sys.executable, SCRIPT, "--out", "peer.json", "--variants", "chunk,naive"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertIn("--variants takes chunk and fused_recurrent, not chunk,naive", run.stderr)

    def test_an_unknown_mode_is_refused_before_anything_runs(self):
        run = subprocess.run([sys.executable, SCRIPT, "--out", "peer.json", "--modes", "fwd,bwd"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertIn("--modes takes fwd and fwdbwd, not fwd,bwd", run.stderr)


if __name__ == "__main__":
    unittest.main()
