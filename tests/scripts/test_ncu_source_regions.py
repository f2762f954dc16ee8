#!/usr/bin/env python3
"""Tests of scripts/ncu-source-regions.py on a small fixture of ncu's source page, run as a user runs it.

Run from anywhere:  python3 tests/scripts/test_ncu_source_regions.py
"""

import csv
import gzip
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts",
                      "ncu-source-regions.py")
HEADER = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed", "stall_barrier",
          "stall_long_sb", "stall_barrier (Not Issued)"]
# Two regions cut after the barrier: 100 + 100 instructions before it, 200 after; samples 10 | 30.
ROWS = [["0x0", "LDG.E.128 R4, [R2]", "6", "100", "0", "6", "0"],
        ["0x10", "BAR.SYNC.DEFER_BLOCKING 0x0", "4", "100", "4", "0", "9"],
        ["0x20", "HMMA.16816.F32.BF16 R8, R4, R6, R8", "30", "150", "30", "0", "0"],
        ["0x30", "LDS R4, [R2]", "0", "50", "0", "0", "0"]]


class NcuSourceRegions(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, rows, compress=False):
        path = os.path.join(self.dir.name, name)
        with (gzip.open(path, "wt", newline="") if compress else open(path, "w", newline="")) as out:
            writer = csv.writer(out)
            writer.writerow(["Kernel Name", "void kernel()"])
            writer.writerows(rows)
        return path

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def test_regions_between_barriers_and_stall_reasons(self):
        for compress in (False, True):
            path = self.write("source.csv.gz" if compress else "source.csv", [HEADER, *ROWS], compress)
            done = self.run_script(path)
            self.assertEqual(done.returncode, 0, done.stderr)
            lines = done.stdout.splitlines()
            self.assertEqual(lines[0], "SASS lines [0, 2): instructions  50.0%, stall samples  25.0%, MUFU 0, "
                             "HMMA 0, LDS 0")
            self.assertEqual(lines[1], "SASS lines [2, 4): instructions  50.0%, stall samples  75.0%, MUFU 0, "
                             "HMMA 150, LDS 50")
            # the not-issued column is not a reason of its own
            self.assertEqual(lines[2], "warp instructions executed 400; stall reasons: barrier 85.0%, long_sb 15.0%")

    def test_instructions_per_warp_and_top_opcodes(self):
        # a predicated IMAD counts as IMAD, whatever its predicate and modifiers
        rows = [*ROWS, ["0x40", "@!P0 IMAD.WIDE.U32 R4, R2, 0x4, R6", "0", "300", "0", "0", "0"]]
        done = self.run_script(self.write("source.csv", [HEADER, *rows]), "--warps", "4", "--ops", "2")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(lines[0], "SASS lines [0, 2): instructions  28.6%, stall samples  25.0%, MUFU 0, "
                         "HMMA 0, LDS 0, 50 a warp")
        self.assertEqual(lines[1], "    LDG 50.0%, BAR 50.0%")
        self.assertEqual(lines[2], "SASS lines [2, 5): instructions  71.4%, stall samples  75.0%, MUFU 0, "
                         "HMMA 150, LDS 50, 125 a warp")
        self.assertEqual(lines[3], "    IMAD 60.0%, HMMA 30.0%")
        self.assertTrue(lines[4].startswith("warp instructions executed 700 (175 a warp); stall reasons:"), lines[4])

    def test_shared_wavefronts_and_their_excess(self):
        # --set full's columns: the LDS before the barrier 2-way conflicted (8 wavefronts, 4 excess), the one
        # after clean; --conflicts lists the conflicted lines, the most excess first among those shown
        header = [*HEADER, "L1 Wavefronts Shared", "L1 Wavefronts Shared Excessive"]
        rows = [ROWS[0] + ["0", "0"], ["0x08", "LDS.128 R8, [R3]", "0", "100", "0", "0", "0", "8", "4"],
                ROWS[1] + ["0", "0"], ROWS[2] + ["0", "0"], ROWS[3] + ["4", "0"]]
        done = self.run_script(self.write("source.csv", [header, *rows]), "--conflicts", "3")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertTrue(lines[0].endswith(", LDS 100, shared wavefronts 8 (50% excess)"), lines[0])
        self.assertTrue(lines[1].endswith(", LDS 50, shared wavefronts 4 (0% excess)"), lines[1])
        self.assertTrue(lines[2].endswith("; shared wavefronts 12 (33% excess)"), lines[2])
        self.assertEqual(lines[3:], ["the 3 lines with the most excess shared wavefronts (index, excess, "
                                     "wavefronts, SASS):",
                                     "     1          4          8  LDS.128 R8, [R3]"])

    def test_conflicts_needs_the_wavefront_columns(self):
        done = self.run_script(self.write("source.csv", [HEADER, *ROWS]), "--conflicts", "3")
        self.assertEqual(done.returncode, 2)
        self.assertIn("no 'L1 Wavefronts Shared Excessive' column", done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1)

    def test_groups_of_lines_by_execution_count(self):
        # counts 100 (two lines, 10 samples), 150 (30 samples), 50 (none), and a line never run
        rows = [*ROWS, ["0x40", "EXIT", "0", "0", "0", "0", "0"]]
        done = self.run_script(self.write("source.csv", [HEADER, *rows]), "--by-count", "2")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(lines[3:], ["lines run 150 times each: 1, instructions  37.5%, stall samples  75.0%",
                                     "lines run 100 times each: 2, instructions  50.0%, stall samples  25.0%"])
        done = self.run_script(self.write("source.csv", [HEADER, *rows]), "--by-count", "9")
        self.assertEqual(done.stdout.splitlines()[-1],
                         "lines run 50 times each: 1, instructions  12.5%, stall samples   0.0%")

    def test_roles_by_line_ranges(self):
        # two roles: lines 0-1 (10 samples: 6 long_sb, 4 barrier) and 2-3 (30 barrier); with --by-count each
        # role's own groups, with their samples as counts
        done = self.run_script(self.write("source.csv", [HEADER, *ROWS]), "--by-count", "2", "--roles", "0,2,4",
                               "loads,outputs")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(lines[5:], [
            "role loads [0, 2): stall samples 10 (25.0%), instructions 200; stall reasons: long_sb 60.0%, "
            "barrier 40.0%",
            "    lines run 100 times each: 2, instructions 100.0%, stall samples 100.0% (10)",
            "role outputs [2, 4): stall samples 30 (75.0%), instructions 200; stall reasons: barrier 100.0%, "
            "long_sb 0.0%",
            "    lines run 150 times each: 1, instructions  75.0%, stall samples 100.0% (30)",
            "    lines run 50 times each: 1, instructions  25.0%, stall samples   0.0% (0)"])

    def test_refuses_roles_that_do_not_fit_the_page(self):
        path = self.write("source.csv", [HEADER, *ROWS])
        for bounds, names in (("0,2,9", "a,b"), ("0,2", "a,b"), ("2,0", "a"), ("0,x", "a")):
            done = self.run_script(path, "--roles", bounds, names)
            self.assertEqual(done.returncode, 2, (bounds, names))
            self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
            self.assertTrue(done.stderr.startswith("ncu-source-regions.py: "), done.stderr)

    def test_lines_of_one_execution_count(self):
        # the two lines run 100 times, in page order, with their samples; none for a count no line has
        done = self.run_script(self.write("source.csv", [HEADER, *ROWS]), "--lines-run", "100")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.splitlines()[3:], ["lines run 100 times (index, stall samples, SASS):",
                                                        "     0        6  LDG.E.128 R4, [R2]",
                                                        "     1        4  BAR.SYNC.DEFER_BLOCKING 0x0"])
        done = self.run_script(self.write("source.csv", [HEADER, *ROWS]), "--lines-run", "7")
        self.assertEqual(done.stdout.splitlines()[-1], "lines run 7 times (index, stall samples, SASS):")

    def test_refuses_bad_options_in_one_line(self):
        path = self.write("source.csv", [HEADER, *ROWS])
        for options in (["--warps", "0"], ["--ops", "many"], ["--by-count", "0"], ["--lines-run", "-1"], ["--colour"]):
            done = self.run_script(path, *options)
            self.assertEqual(done.returncode, 2, options)
            self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
            self.assertTrue(done.stderr.startswith("ncu-source-regions.py: "), done.stderr)

    def test_one_page_printed_twice_reads_as_one(self):
        # ncu 2025 (CUDA 13) printed each kernel's page twice in stop 78's exports
        once = self.run_script(self.write("once.csv", [HEADER, *ROWS]))
        twice = self.run_script(self.write("twice.csv", [HEADER, *ROWS, ["Kernel Name", "void kernel()"], HEADER,
                                                         *ROWS]))
        self.assertEqual(twice.returncode, 0, twice.stderr)
        self.assertEqual(twice.stdout, once.stdout)

    def test_refuses_two_different_pages_in_one_line(self):
        done = self.run_script(self.write("two.csv", [HEADER, *ROWS, ["Kernel Name", "void b()"], HEADER, *ROWS[:2]]))
        self.assertEqual(done.returncode, 2)
        self.assertIn("2 different source pages", done.stderr)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)

    def test_refuses_what_is_not_the_source_page(self):
        done = self.run_script(self.write("other.csv", [["name", "value"], ["a", "1"]]))
        self.assertEqual(done.returncode, 2)
        self.assertIn("not ncu's source page", done.stderr)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        done = self.run_script(os.path.join(self.dir.name, "absent.csv"))
        self.assertEqual(done.returncode, 2)
        self.assertIn("absent.csv", done.stderr)
        self.assertEqual(self.run_script().returncode, 2)


if __name__ == "__main__":
    unittest.main()
