#!/usr/bin/env python3
"""Tests of scripts/sass-mix.py (every kernel's SASS instruction mix) on a small cuobjdump fixture.

Run from anywhere:  python3 tests/scripts/test_sass_mix.py
"""

import json
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts",
                      "sass-mix.py")

# Two kernels as cuobjdump -sass prints them: one with a run-time division's start and a spill, one without.
SASS = """
	code for sm_90
		Function : _Z6divideiPi
	.headerflags	@"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   I2F.U32.RP R0, R5 ;
        /*0020*/                   MUFU.RCP R0, R0 ;
        /*0030*/              @!P0 STL [R1], R2 ;
        /*0040*/                   LDL R3, [R1] ;
        /*0050*/                   EXIT ;
        /*0060*/                   NOP ;
		..........
		Function : _Z4copyPfPKf
        /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;
        /*0010*/                   STG.E desc[UR4][R4.64], R2 ;
        /*0020*/               @P0 EXIT ;
        /*0030*/                   BRA 0x30;
"""


class SassMix(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def run_script(self, *args, stdin=SASS):
        return subprocess.run([sys.executable, SCRIPT, *args], input=stdin, capture_output=True, text=True)

    def test_counts_each_kernels_opcodes_without_nops(self):
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stderr)
        kernels = [json.loads(line) for line in result.stdout.splitlines()]
        self.assertEqual([k["function"] for k in kernels], ["_Z6divideiPi", "_Z4copyPfPKf"])
        self.assertEqual(kernels[0]["total"], 6)
        self.assertEqual(kernels[0]["ops"]["I2F.U32.RP"], 1)
        self.assertEqual(kernels[0]["ops"]["STL"], 1)  # the predicated store counted by its opcode
        self.assertNotIn("NOP", kernels[0]["ops"])
        self.assertEqual(kernels[1]["ops"], {"LDG.E": 1, "STG.E": 1, "EXIT": 1, "BRA": 1})

    def test_table_lists_only_kernels_with_divisions_calls_or_spills(self):
        result = self.run_script("--table")
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertTrue(lines[0].startswith("divisions"))
        self.assertEqual(len(lines), 3)  # header, the dividing kernel, the count
        name = r"divide\(int, int\*\)" if shutil.which("c++filt") else "_Z6divideiPi"
        self.assertRegex(lines[1], r"^\s+1\s+0\s+0\s+1\s+1\s+6\s+" + name + "$")
        self.assertEqual(lines[2], "1 of 2 kernels")

    def test_table_from_saved_json_lines_in_xz(self):
        mix = self.run_script().stdout
        path = os.path.join(self.dir.name, "mix.jsonl.xz")
        with lzma.open(path, "wt") as out:
            out.write(mix)
        result = self.run_script(path, "--table", stdin="")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("divide(int, int*)" if shutil.which("c++filt") else "_Z6divideiPi", result.stdout)

    def test_refuses_input_that_is_not_cuobjdump_output(self):
        result = self.run_script(stdin="hello\n")
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr.strip().count("\n"), 0)
        self.assertIn("cuobjdump -sass", result.stderr)

    def test_refuses_a_missing_file(self):
        result = self.run_script(os.path.join(self.dir.name, "absent.jsonl"), stdin="")
        self.assertEqual(result.returncode, 2)
        self.assertIn("cannot read", result.stderr)


if __name__ == "__main__":
    unittest.main()
