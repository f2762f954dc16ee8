#!/usr/bin/env python3
"""Tests of scripts/timeline.py (one profiled run's launches by stream) on small fixtures.

Run from anywhere:  python3 tests/scripts/test_timeline.py
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts",
                      "timeline.py")

TRACED = {"name": "gsa/fused_recurrent/fwdbwd/bf16/B8-T1024-H8-K64-V64-M64", "status": "ok",
          "timeline": [{"kernel": "flabench::fused::fwd_kernel<flabench::GlaForm, 8>", "stream": 0,
                        "start_ms": 0.0, "end_ms": 0.1},
                       {"kernel": "flabench::fused::columns<flabench::GlaForm>", "stream": 0,
                        "start_ms": 0.1, "end_ms": 0.25},
                       {"kernel": "flabench::fused::rows<flabench::GlaForm>", "stream": 1,
                        "start_ms": 0.12, "end_ms": 0.4}]}
UNTRACED = {"name": "gla/fused_recurrent/fwd/bf16/B8-T1024-H8-K64-V64", "status": "ok"}


class Timeline(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "profile.json")
        with open(self.path, "w") as out:
            json.dump({"cases": [UNTRACED, TRACED]}, out)

    def tearDown(self):
        self.dir.cleanup()

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def test_streams_and_launches_of_the_traced_case(self):
        result = self.run_script(self.path)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], TRACED["name"] + ": 3 launches on 2 streams, 400.0 us")
        self.assertNotIn(UNTRACED["name"], result.stdout)
        self.assertRegex(lines[2], r"^\s+0\s+2\s+250\.0\s+0\.0\s+250\.0$")  # stream 0: busy, first, last
        self.assertRegex(lines[3], r"^\s+1\s+1\s+280\.0\s+120\.0\s+400\.0$")
        self.assertRegex(lines[5], r"^\s+0\s+0\.0\s+100\.0\s+100\.0\s+fwd_kernel<GlaForm, 8>$")
        self.assertRegex(lines[7], r"^\s+1\s+120\.0\s+400\.0\s+280\.0\s+rows<GlaForm>$")

    def test_no_timeline_and_bad_input_are_one_line_and_exit_2(self):
        for args, needle in (([self.path, "--filter", "^gla/"], "no case matching '^gla/' has a timeline"),
                             ([os.path.join(self.dir.name, "missing.json")], "not a result file"),
                             ([self.path, "--filter", "("], "not a regular expression"),
                             ([], "usage")):
            result = self.run_script(*args)
            self.assertEqual(result.returncode, 2, args)
            self.assertIn(needle, result.stderr)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)


if __name__ == "__main__":
    unittest.main()
