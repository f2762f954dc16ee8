#!/usr/bin/env python3
"""Tests of scripts/candidate.sh (a kernel candidate's battery, error comparison and A/B in one call) on the cpu
backend, run as a user runs it: every step's files, a failed step named while the others still run, bad
arguments refused in one line. usage: test_candidate.py FLA_BENCH"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "scripts",
                      "candidate.sh")
FLA_BENCH = ""
CHECK_FILTER = "^shapes/rwkv6/reference/fwdbwd/fp32/B1-T1-"
TIMING = ["--device", "cpu", "--filter", "^gla/reference/fwd/fp32/", "--min-time", "0.01", "--min-samples", "3"]


def candidate(out, reference, check_filter=CHECK_FILTER, timing=TIMING):
    return subprocess.run(["bash", SCRIPT, FLA_BENCH, FLA_BENCH, out, "2", check_filter, reference, *timing],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "CHECK_ARGS": "--device cpu"})


class Candidate(unittest.TestCase):
    def test_every_step_runs_and_is_kept(self):
        with tempfile.TemporaryDirectory() as out:
            done = candidate(out, "base")
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            for name in ("check-base.json.xz", "check-new.json.xz", "check-new.log", "check-errors.txt",
                         "ab-out.txt", "ab/rounds.json"):
                self.assertTrue(os.path.isfile(os.path.join(out, name)), name)
            # One binary against itself: its errors are the same bit for bit, and the A/B covers its cases.
            self.assertRegex(done.stdout, r"errors in both: ([1-9]\d*), bit-for-bit the same: \1, changed: 0")
            self.assertIn("2 cases over 2 rounds", done.stdout)

    def test_an_earlier_battery_is_the_reference(self):
        with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as out:
            self.assertEqual(candidate(first, "base").returncode, 0)
            done = candidate(out, os.path.join(first, "check-new.json.xz"))
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            self.assertFalse(os.path.exists(os.path.join(out, "check-base.json.xz")))
            self.assertIn("changed: 0", done.stdout)

    def test_a_failed_step_is_named_and_the_others_still_run(self):
        with tempfile.TemporaryDirectory() as out:
            done = candidate(out, "base", check_filter="^no-such-check/")
            self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
            self.assertIn(f"candidate.sh: failed: new's battery (exit 2; {out}/check-new.log)", done.stderr)
            self.assertIn("candidate.sh: failed: the error comparison (no battery result to compare)", done.stderr)
            self.assertIn("2 cases over 2 rounds", done.stdout)  # the A/B after the failed battery
        with tempfile.TemporaryDirectory() as out:
            done = candidate(out, "base", timing=["--device", "cpu", "--filter", "^no-such-op/"])
            self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
            self.assertEqual(done.stderr.strip(), f"candidate.sh: failed: the A/B ({out}/ab-out.txt)")
            self.assertIn("changed: 0", done.stdout)

    def test_bad_arguments_are_refused_in_one_line(self):
        with tempfile.TemporaryDirectory() as out:
            done = candidate(out, os.path.join(out, "missing.json"))
            self.assertEqual(done.returncode, 2)
            self.assertEqual(done.stderr.strip(), "candidate.sh: REFERENCE must be a check result file or 'base', "
                             f"not '{out}/missing.json'")
            done = subprocess.run(["bash", SCRIPT, FLA_BENCH, "/no/such/fla-bench", out, "2", CHECK_FILTER, "base"],
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 2)
            self.assertEqual(done.stderr.strip(), "candidate.sh: /no/such/fla-bench is not an executable fla-bench")


if __name__ == "__main__":
    FLA_BENCH = os.path.abspath(sys.argv.pop(1))
    unittest.main()
