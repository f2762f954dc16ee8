#!/usr/bin/env python3
"""Tests of scripts/ptxas-compare.py (two builds of one CUDA file, kernel by kernel) on two small kernels
compiled here, once as they are and once with one of them longer.

usage: test_ptxas_compare.py NVCC"""
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "ptxas-compare.py")
NVCC = "nvcc"

SOURCE = """
__global__ void same(float* x) { x[threadIdx.x] *= 2.0f; }
__global__ void grows(float* x) {
  float v = x[threadIdx.x];
#if LONGER
  for (int i = 0; i < 8; ++i) v = v * v + float(i);
#endif
  x[threadIdx.x] = v;
}
namespace {  // its hash in the mangled name differs from build to build
template <int N>
__global__ void hidden(float* x) { x[threadIdx.x] += float(N); }
template __global__ void hidden<3>(float*);
}
#if LONGER
__global__ void retyped(float* x, int n) { x[threadIdx.x] = float(n); }
__global__ void added(float* x) { x[0] = 1.0f; }
#else
__global__ void retyped(float* x) { x[threadIdx.x] = 0.0f; }
#endif
"""


def build(directory, name, longer):
    source = os.path.join(directory, name + ".cu")  # (the anonymous namespace's hash follows the file)
    with open(source, "w") as f:
        f.write(SOURCE)
    cubin, log = os.path.join(directory, name + ".cubin"), os.path.join(directory, name + ".ptxas")
    done = subprocess.run([NVCC, "-O3", "-arch=sm_90", "-cubin", "-Xptxas", "-v", f"-DLONGER={int(longer)}",
                           source, "-o", cubin], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise AssertionError(done.stdout + done.stderr)
    with open(log, "w") as f:
        f.write(done.stdout + done.stderr)
    return log, cubin


def mangled(log, kernel):
    """The mangled name ptxas's log gives the kernel whose name contains `kernel`."""
    with open(log) as f:
        return [w for w in f.read().split("'") if kernel in w and w.startswith("_Z")][0]


def compare(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=60)


class PtxasCompare(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.base = build(cls.dir.name, "base", longer=False)
        cls.new = build(cls.dir.name, "new", longer=True)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_the_changed_kernel_alone_with_its_counts(self):
        done = compare(*self.base, *self.new)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("grows(float*)", done.stdout)
        self.assertNotIn("same(float*)", done.stdout)
        self.assertNotIn("hidden", done.stdout)  # the same kernel, its namespace's hash aside
        self.assertNotEqual(mangled(self.base[0], "hidden"), mangled(self.new[0], "hidden"))
        self.assertIn("4 kernels in BASE, 5 in NEW, 3 changed", done.stdout)
        line = [l for l in done.stdout.splitlines() if l.strip().startswith("SASS")][0]
        before, after = (int(x) for x in line.split("SASS ")[1].split(" instructions")[0].split(" -> "))
        self.assertGreater(after, before)
        self.assertIn("spill stores/loads 0/0 -> 0/0 bytes", line)

    def test_a_kernel_whose_parameters_changed_is_paired_and_a_new_one_listed(self):
        done = compare(*self.base, *self.new)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        at = lines.index("  retyped(float*)")
        self.assertEqual(lines[at + 1], "  -> retyped(float*, int)")
        self.assertIn("parameters changed; SASS", lines[at + 2])
        at = lines.index("  added(float*)")
        self.assertEqual(lines[at + 1].strip(), "only in NEW")

    def test_a_build_against_itself_changes_nothing(self):
        done = compare(*self.base, *self.base)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "4 kernels in BASE, 4 in NEW, 0 changed")

    def test_files_it_cannot_read_get_one_line(self):
        for args in ([self.base[0], "/no/such.cubin", *self.new],
                     [self.base[1], self.base[1], *self.new],  # a cubin where the log should be
                     ["/no/such.ptxas", self.base[1], *self.new], [self.base[0]]):
            done = compare(*args)
            self.assertEqual(done.returncode, 2, args)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        NVCC = sys.argv.pop(1)
    unittest.main()
