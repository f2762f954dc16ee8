#!/usr/bin/env python3
"""Tests of scripts/check-error-compare.py (two check results' errors side by side) on small fixtures.

Run from anywhere:  python3 tests/scripts/test_check_error_compare.py
"""

import json
import lzma
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts",
                      "check-error-compare.py")


def case(name, op, family, status, tensors):
    return {"name": name, "op": op, "family": family, "dtype": "bf16", "status": status,
            "check": {"tensors": [{"tensor": t, "rms_ratio": r, "passed": p} for t, r, p in tensors]}}


BASE = [case("accuracy/gla/chunk/fwd/bf16/A", "gla", "accuracy", "ok", [("o", 2.0e-3, True), ("ht", 5.0e-4, True)]),
        case("decay/gla/chunk/fwd/bf16/B", "gla", "decay", "ok", [("o", 1.0e-3, True)]),
        {"name": "shapes/gla/chunk/fwd/bf16/C", "op": "gla", "family": "shapes", "dtype": "bf16",
         "status": "skipped", "reason": "shared memory"}]
NEW = [case("accuracy/gla/chunk/fwd/bf16/A", "gla", "accuracy", "ok", [("o", 3.0e-3, True), ("ht", 5.0e-4, True)]),
       case("decay/gla/chunk/fwd/bf16/B", "gla", "decay", "failed", [("o", 9.0e-3, False)]),
       BASE[2]]


class CheckErrorCompare(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.base = self.write("base.json", {"cases": BASE})
        self.new = self.write("new.json", {"cases": NEW})

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, content):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as out:
            out.write(content if isinstance(content, str) else json.dumps(content))
        return path

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def test_counts_same_and_changed_errors(self):
        out = self.run_script(self.base, self.new)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("3 cases, 2 ok, 1 skipped", out.stdout)
        self.assertIn("3 cases, 1 failed, 1 ok, 1 skipped", out.stdout)
        self.assertIn("errors in both: 3, bit-for-bit the same: 1, changed: 2", out.stdout)
        self.assertIn("largest relative change 8.0000: decay/gla/chunk/fwd/bf16/B o", out.stdout)

    def test_reads_the_partial_file_of_a_run_that_stopped(self):
        # JSON Lines: the header, then a case a line, the last cut short by the kill; kept xz-compressed as
        # results/baselines keeps them. The cases carry the keys every result case has.
        def full(c):
            case = {**c, "variant": "chunk", "mode": "fwd",
                    "axes": {k: 1 for k in ("B", "T", "H", "K", "V", "chunk_size")}}
            if "check" in c:
                tensors = [{**t, "threshold": 5e-3, "nonfinite": 0} for t in c["check"]["tensors"]]
                case["check"] = {"passed": all(t["passed"] for t in tensors), "tensors": tensors}
            return case
        header = {"schema": "fla-bench-result", "schema_version": "1.0", "context": {"device": {"name": "GPU"}}}
        lines = [json.dumps(header)] + [json.dumps({"case": full(c)}) for c in NEW]
        text = "\n".join(lines)
        partial = os.path.join(self.dir.name, "new.json.partial.xz")
        with open(partial, "wb") as out:
            out.write(lzma.compress(text[:len(text) - len(lines[-1]) // 2].encode()))
        out = self.run_script(self.base, partial)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("2 cases, 1 failed, 1 ok", out.stdout)
        self.assertIn("errors in both: 3, bit-for-bit the same: 1, changed: 2", out.stdout)

    def test_a_damaged_partial_file_is_refused_in_one_line(self):
        partial = self.write("new.json.partial", "{not json\n{}\n")
        out = self.run_script(self.base, partial)
        self.assertEqual(out.returncode, 2)
        self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)

    def test_an_error_that_was_zero_is_counted_apart(self):
        # two kernels that agreed exactly (a cross check) and now differ: no relative change to rank
        base = self.write("zero-base.json", {"cases": [case("cross/gla/a~b/fwd/bf16/D", "gla", "cross", "ok",
                                                            [("o", 0.0, True), ("ht", 1.0e-3, True)])]})
        new = self.write("zero-new.json", {"cases": [case("cross/gla/a~b/fwd/bf16/D", "gla", "cross", "ok",
                                                          [("o", 4.0e-7, True), ("ht", 1.5e-3, True)])]})
        out = self.run_script(base, new)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("largest relative change 0.5000: cross/gla/a~b/fwd/bf16/D ht", out.stdout)
        self.assertIn("1 changed from exactly 0, the largest now 4.000e-07: cross/gla/a~b/fwd/bf16/D o", out.stdout)

    def test_lists_failures_and_marks_rises_per_family(self):
        lines = self.run_script(self.base, self.new).stdout.splitlines()
        self.assertIn("FAILED decay/gla/chunk/fwd/bf16/B: o 9.00e-03", lines)
        rows = {tuple(line.split()[:4]): line for line in lines if line.startswith("bf16")}
        self.assertIn("<-- 1.50x", rows[("bf16", "other", "gla", "o")])
        self.assertIn("<-- 9.00x", rows[("bf16", "decay", "gla", "o")])
        self.assertNotIn("<--", rows[("bf16", "other", "gla", "ht")])

    def test_identical_files_change_nothing(self):
        out = self.run_script(self.base, self.base).stdout
        self.assertIn("changed: 0", out)
        self.assertNotIn("<--", out)
        self.assertNotIn("FAILED", out)

    def test_a_check_added_since_base_stays_out_of_the_worst_errors(self):
        # a new, harder case would otherwise read as a rise of its group's worst error
        added = case("state/gla/chunk/fwd/bf16/E", "gla", "state", "ok", [("o", 4.0e-3, True)])
        new = self.write("added.json", {"cases": BASE + [added]})
        out = self.run_script(self.base, new)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("cases only in NEW: 1, only in BASE: 0", out.stdout)
        self.assertNotIn("<--", out.stdout)
        self.assertNotIn("only in", self.run_script(self.base, self.new).stdout)

    def test_filter_keeps_one_variants_cases(self):
        # the chunk variant's worse errors would hide a rise of the naive one's
        base = self.write("v-base.json", {"cases": [
            case("accuracy/gla/chunk/fwd/bf16/A", "gla", "accuracy", "ok", [("o", 5.0e-3, True)]),
            case("accuracy/gla/naive/fwd/bf16/A", "gla", "accuracy", "ok", [("o", 1.0e-3, True)])]})
        new = self.write("v-new.json", {"cases": [
            case("accuracy/gla/chunk/fwd/bf16/A", "gla", "accuracy", "ok", [("o", 5.0e-3, True)]),
            case("accuracy/gla/naive/fwd/bf16/A", "gla", "accuracy", "ok", [("o", 2.0e-3, True)])]})
        row = lambda out: [line for line in out.stdout.splitlines() if line.startswith("bf16")][0]
        self.assertNotIn("<--", row(self.run_script(base, new)))
        out = self.run_script(base, new, "--filter", "/naive/")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("1 cases, 1 ok", out.stdout)
        self.assertIn("<-- 2.00x", row(out))

    def test_reads_xz_compressed_results_as_kept_in_the_version_folders(self):
        packed = os.path.join(self.dir.name, "new.json.xz")
        with lzma.open(packed, "wt") as out:
            json.dump({"cases": NEW}, out)
        out = self.run_script(self.base, packed)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.replace(packed, self.new), self.run_script(self.base, self.new).stdout)

    def cut_xz(self):
        """A real xz file cut short: its magic bytes say xz, its data ends early."""
        path = os.path.join(self.dir.name, "cut.json.xz")
        packed = lzma.compress(json.dumps({"cases": NEW}).encode())
        with open(path, "wb") as out:
            out.write(packed[:len(packed) // 2])
        return path

    def test_bad_input_is_one_line_and_exit_2(self):
        for args in [(self.base,), (self.base, os.path.join(self.dir.name, "missing.json")),
                     (self.base, self.new, "--filter", "("), (self.base, self.new, "--filter"),
                     (self.base, self.write("bad.json", "not json")), (self.base, self.write("x.json", {"a": 1})),
                     (self.base, self.write("damaged.json.xz", "not xz")), (self.base, self.cut_xz())]:
            out = self.run_script(*args)
            self.assertEqual(out.returncode, 2, args)
            self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)
            self.assertTrue(out.stderr.startswith("check-error-compare.py: "), out.stderr)


if __name__ == "__main__":
    unittest.main()
