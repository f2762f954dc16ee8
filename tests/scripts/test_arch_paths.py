#!/usr/bin/env python3
"""The kernels' architecture-dependent code built for every architecture the CUDA_ARCHITECTURES option is
documented for (README: 80, 86, 89, 90), and the instructions each path is meant to take read from the PTX:
tests/kernels/arch_paths_probe.cu through nvcc (to PTX) and ptxas (to the GPU's code, which checks the inline
assembly against that GPU); tests/kernels/wgmma_arch_probe.cu likewise and for sm_90a, the only target with
the warpgroup products. CI builds sm_90 only; this is what keeps the older GPUs' paths compiling. A test of
__CUDA_ARCH__ added to kernels/ without the probe taking it fails here too.

usage: test_arch_paths.py NVCC"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBE = os.path.join(REPO, "tests", "kernels", "arch_paths_probe.cu")
WGMMA_PROBE = os.path.join(REPO, "tests", "kernels", "wgmma_arch_probe.cu")
NVCC = "nvcc"
ARCHITECTURES = (80, 86, 89, 90)
# Every test of __CUDA_ARCH__'s value in kernels/ (file: how many), each one a path the probe builds. A new one
# fails test_probe_covers_every_branch until the probe takes it too.
BRANCHES = {"kernels/common/chunk/warp_mma.cuh": 2, "kernels/common/stage_barrier.cuh": 1,
            "kernels/rwkv7/chunk_tiles.cuh": 1, "kernels/common/cp_async.cuh": 1,
            "kernels/common/tma.cuh": 1}


def ptx_for(arch, out_dir, probe=PROBE):
    """A probe's PTX for compute_<arch>, after ptxas has accepted it for sm_<arch>."""
    ptx = os.path.join(out_dir, f"{os.path.basename(probe)}_{arch}.ptx")
    for command in ([NVCC, "-std=c++20", "-I", REPO, "-O3", f"-arch=compute_{arch}", "-ptx", probe, "-o", ptx],
                    [os.path.join(os.path.dirname(NVCC), "ptxas") if os.path.dirname(NVCC) else "ptxas",
                     f"-arch=sm_{arch}", ptx, "-o", ptx.replace(".ptx", ".cubin")]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise AssertionError(f"sm_{arch}: {' '.join(command[:1])} failed:\n{done.stdout}{done.stderr}")
    with open(ptx) as f:
        return f.read()


def count(ptx, instruction):
    """How many lines of the PTX hold `instruction` (its full name, ended by a space, tab or ';')."""
    return len(re.findall(r"^\s*" + re.escape(instruction) + r"(?=[\s;])", ptx, flags=re.MULTILINE))


def architecture_branches():
    """{file: count} of the preprocessor tests of __CUDA_ARCH__'s value (not of whether it is defined)."""
    found = {}
    for root, _, files in os.walk(os.path.join(REPO, "kernels")):
        for name in files:
            path = os.path.join(root, name)
            with open(path, errors="replace") as f:
                hits = len(re.findall(r"^\s*#\s*(?:el)?if\b.*__CUDA_ARCH__\s*[<>=!]", f.read(), flags=re.MULTILINE))
            if hits:
                found[os.path.relpath(path, REPO)] = hits
    return found


class ProbeCoverage(unittest.TestCase):
    def test_probe_covers_every_branch(self):
        self.assertEqual(architecture_branches(), BRANCHES,
                         "an architecture branch was added or removed in kernels/: build its paths in "
                         "tests/kernels/arch_paths_probe.cu, check them here, then update BRANCHES")


class ProbePtx(unittest.TestCase):
    """A probe's PTX for each of `architectures`, built once for the class's tests (in self.ptx)."""
    probe, architectures = PROBE, ARCHITECTURES

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.ptx = {arch: ptx_for(arch, cls.dir.name, cls.probe) for arch in cls.architectures}

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()


class ArchPaths(ProbePtx):

    def test_tf32_rounding_takes_each_gpus_instruction(self):
        # sm_90: round to nearest even, one instruction; before it only ties-away exists (chunk.md, v57).
        for arch, ptx in self.ptx.items():
            with self.subTest(arch=arch):
                rn, rna = count(ptx, "cvt.rn.tf32.f32"), count(ptx, "cvt.rna.tf32.f32")
                self.assertEqual((rn > 0, rna > 0), (arch >= 90, arch < 90), f"rn {rn}, rna {rna}")

    def test_transposed_store_takes_stmatrix_only_where_it_exists(self):
        for arch, ptx in self.ptx.items():
            with self.subTest(arch=arch):
                stmatrix = count(ptx, "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16")
                self.assertEqual(stmatrix > 0, arch >= 90, f"stmatrix {stmatrix}")
                # below sm_90 the element stores, and never the trap stmatrix keeps for them
                self.assertEqual(count(ptx, "trap"), 0)
                if arch < 90:
                    self.assertGreater(count(ptx, "st.shared.u16") + count(ptx, "st.shared.b16"), 0)

    def test_stage_barrier_waits_by_each_gpus_instruction(self):
        # mbarrier.try_wait (the hardware's bounded wait) exists from sm_90; before it a test_wait loop.
        for arch, ptx in self.ptx.items():
            with self.subTest(arch=arch):
                try_wait = count(ptx, "mbarrier.try_wait.parity.shared.b64")
                test_wait = count(ptx, "mbarrier.test_wait.parity.shared.b64")
                self.assertEqual((try_wait, test_wait), (2, 0) if arch >= 90 else (0, 2))
                self.assertEqual(count(ptx, "cp.async.mbarrier.arrive.noinc.shared.b64"), 1)


    def test_l2_prefetch_only_where_it_exists(self):
        for arch, ptx in self.ptx.items():
            with self.subTest(arch=arch):
                self.assertEqual(count(ptx, "cp.async.bulk.prefetch.L2.global"), 1 if arch >= 90 else 0)


class WgmmaPaths(ProbePtx):
    """kernels/common/wgmma/: the products' instructions in sm_90a code only, a trap on every other target."""
    probe, architectures = WGMMA_PROBE, ARCHITECTURES + ("90a",)

    def test_products_only_in_sm90a_code(self):
        for arch, ptx in self.ptx.items():
            with self.subTest(arch=arch):
                products = count(ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16")
                self.assertEqual(products, 2 if arch == "90a" else 0)
                self.assertEqual(count(ptx, "wgmma.fence.sync.aligned") > 0, arch == "90a")
                self.assertEqual(count(ptx, "trap") > 0, arch != "90a")

    def test_tma_copies_only_from_sm90(self):
        # (wgmma_arch_probe.cu's probe_tma_copy) one box, one expected byte count; before sm_90 a trap
        for arch, ptx in self.ptx.items():
            with self.subTest(arch=arch):
                on = arch == "90a" or arch >= 90
                box = count(ptx, "cp.async.bulk.tensor.4d.shared::cluster.global.tile"
                                 ".mbarrier::complete_tx::bytes")
                self.assertEqual(box, 1 if on else 0)
                self.assertEqual(count(ptx, "mbarrier.arrive.expect_tx.shared::cta.b64"), 1 if on else 0)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        NVCC = sys.argv.pop(1)
    unittest.main()
