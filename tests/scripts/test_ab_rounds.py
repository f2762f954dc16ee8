#!/usr/bin/env python3
"""Tests of scripts/ab-rounds.sh (an A/B test of two builds in alternating rounds) on the cpu backend, run as a
user runs it: the rounds' files and the compare --rounds table, a failed run kept and reported, bad arguments
refused in one line. usage: test_ab_rounds.py FLA_BENCH"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "scripts",
                      "ab-rounds.sh")
FLA_BENCH = ""
QUICK = ["--device", "cpu", "--filter", "^gla/reference/fwd/fp32/", "--min-time", "0.01", "--min-samples", "3"]


def ab(*args, env=None):
    return subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def wrapped(path, before):
    """An executable at `path` that runs the shell line `before`, then fla-bench with its arguments."""
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\n{before}\nexec "{FLA_BENCH}" "$@"\n')
    os.chmod(path, 0o755)
    return path


class AbRounds(unittest.TestCase):
    def test_rounds_are_kept_and_compared(self):
        with tempfile.TemporaryDirectory() as out:
            done = ab(FLA_BENCH, FLA_BENCH, out, "2", *QUICK)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            for name in ("r1-base", "r1-new", "r2-base", "r2-new"):
                self.assertTrue(os.path.isfile(os.path.join(out, name + ".json")), name)
            self.assertIn("2 cases over 2 rounds", done.stdout)
            with open(os.path.join(out, "rounds.json")) as f:
                rounds = json.load(f)
            self.assertEqual(rounds["schema"], "fla-bench-compare-rounds")
            self.assertEqual(len(rounds["rounds"]), 2)
            self.assertEqual([len(c["ratios"]) for c in rounds["cases"]], [2, 2])

    def test_a_failed_run_is_reported_and_the_rounds_before_it_kept(self):
        with tempfile.TemporaryDirectory() as out:
            done = ab(FLA_BENCH, FLA_BENCH, out, "2", "--device", "cpu", "--filter", "^no-such-op/")
            self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
            self.assertEqual(done.stderr.strip().splitlines()[-1],
                             f"ab-rounds.sh: round 1's base run failed (exit 2; {out}/r1-base.log)")
            with open(os.path.join(out, "r1-base.log")) as f:
                self.assertIn("no case matches --filter", f.read())

    def test_a_later_failure_keeps_the_whole_rounds_compared(self):
        with tempfile.TemporaryDirectory() as out:
            # NEW runs once, then fails: round 1 is whole, round 2's new run is not
            new = wrapped(os.path.join(out, "new-once"), f'[ -e "{out}/ran" ] && exit 3\ntouch "{out}/ran"')
            runs = os.path.join(out, "runs")
            done = ab(FLA_BENCH, new, runs, "3", *QUICK)
            self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
            self.assertEqual(done.stderr.strip().splitlines()[-1],
                             f"ab-rounds.sh: round 2's new run failed (exit 3; {runs}/r2-new.log)")
            self.assertTrue(os.path.isfile(os.path.join(runs, "r2-base.json")))
            with open(os.path.join(runs, "rounds.txt")) as f:
                self.assertIn("2 cases over 1 rounds", f.read())
            with open(os.path.join(runs, "rounds.json")) as f:
                self.assertEqual(len(json.load(f)["rounds"]), 1)

    def test_each_side_runs_with_its_own_settings(self):
        with tempfile.TemporaryDirectory() as out:
            # one binary timed against itself, a switch telling the sides apart (as an A/B build's)
            switched = wrapped(os.path.join(out, "switched"), f'echo "$FLA_AB_SIDE" >> "{out}/sides"')
            done = ab(switched, switched, os.path.join(out, "runs"), "2", *QUICK,
                      env={"BASE_ENV": "FLA_AB_SIDE=0", "NEW_ENV": "FLA_AB_SIDE=1 OTHER=x"})
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            with open(os.path.join(out, "sides")) as f:
                self.assertEqual(f.read().split(), ["0", "1", "0", "1"])
            done = ab(switched, switched, os.path.join(out, "runs"), "1", *QUICK, env={"NEW_ENV": "-i"})
            self.assertEqual(done.returncode, 2)
            self.assertEqual(done.stderr.strip(), "ab-rounds.sh: BASE_ENV and NEW_ENV take VAR=value words, not '-i'")

    def test_bad_arguments_are_one_line_errors(self):
        with tempfile.TemporaryDirectory() as out:
            done = ab(FLA_BENCH, FLA_BENCH, out, "two")
            self.assertEqual(done.returncode, 2)
            self.assertEqual(done.stderr.strip(), "ab-rounds.sh: ROUNDS must be a positive whole number, not 'two'")
            done = ab(FLA_BENCH, os.path.join(out, "absent"), out, "1")
            self.assertEqual(done.returncode, 2)
            self.assertEqual(done.stderr.strip(), f"ab-rounds.sh: {out}/absent is not an executable fla-bench")
            done = ab(FLA_BENCH, FLA_BENCH, out)
            self.assertEqual(done.returncode, 2)
            self.assertTrue(done.stderr.startswith("usage: "), done.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_ab_rounds.py FLA_BENCH")
    FLA_BENCH = os.path.abspath(sys.argv.pop(1))
    unittest.main()
