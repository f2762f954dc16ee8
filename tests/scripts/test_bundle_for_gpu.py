#!/usr/bin/env python3
"""Tests of scripts/bundle-for-gpu.sh: the binaries and their libraries copied, and a build whose ninja log
holds an object with no header dependencies (so a header change would not rebuild it) refused in one line.
A stand-in `ninja` on PATH prints the deps listing; the binaries are copies of a dynamic executable."""
import os
import shutil
import subprocess
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "scripts",
                      "bundle-for-gpu.sh")
HEALTHY = """kernels/CMakeFiles/k.dir/gsa/fused_recurrent.cu.o: #deps 2, deps mtime 1 (VALID)
    /src/kernels/gsa/fused_recurrent.cu
    /src/kernels/gsa/fused_plan.h

"""
STALE = HEALTHY + """kernels/CMakeFiles/k.dir/rwkv6/fused_recurrent.cu.o: #deps 0, deps mtime 2 (VALID)

"""


def build_dir(root, deps):
    """A build folder with build.ninja, the four binaries and a `ninja` that prints `deps` for -t deps."""
    build = os.path.join(root, "build")
    os.makedirs(os.path.join(build, "tests"))
    open(os.path.join(build, "build.ninja"), "w").close()
    true = shutil.which("true")
    for exe in ("fla-bench", "tests/flabench_tests", "tests/flabench_cli_tests", "tests/flabench_wgmma_tests"):
        shutil.copy(true, os.path.join(build, exe))
    tools = os.path.join(root, "tools")
    os.makedirs(tools)
    with open(os.path.join(root, "deps.txt"), "w") as f:
        f.write(deps)
    with open(os.path.join(tools, "ninja"), "w") as f:
        f.write(f'#!/bin/sh\ncat "{root}/deps.txt"\n')
    os.chmod(os.path.join(tools, "ninja"), 0o755)
    return build, tools


def bundle(root, deps):
    """Bundles a build folder made under `root` whose ninja lists `deps`, into root/out: (the run, root/out)."""
    build, tools = build_dir(root, deps)
    out = os.path.join(root, "out")
    done = subprocess.run(["bash", SCRIPT, build, out], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": tools + os.pathsep + os.environ["PATH"]})
    return done, out


class BundleForGpu(unittest.TestCase):
    def test_a_healthy_build_is_bundled(self):
        with tempfile.TemporaryDirectory() as root:
            done, out = bundle(root, HEALTHY)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            for exe in ("fla-bench", "flabench_tests", "flabench_cli_tests", "flabench_wgmma_tests"):
                self.assertTrue(os.path.isfile(os.path.join(out, exe)), exe)
            self.assertTrue(os.path.isdir(os.path.join(out, "lib")))

    def test_an_object_without_header_dependencies_is_refused(self):
        with tempfile.TemporaryDirectory() as root:
            done, out = bundle(root, STALE)
            self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
            self.assertEqual(
                done.stderr.strip(),
                "bundle-for-gpu.sh: ninja has no header dependencies for 1 object(s), so they may be stale "
                "(first: kernels/CMakeFiles/k.dir/rwkv6/fused_recurrent.cu.o); touch their sources and build "
                "again")
            self.assertFalse(os.path.exists(out), "nothing is bundled from a build that may be stale")

    def test_a_ninja_build_without_ninja_is_refused(self):
        with tempfile.TemporaryDirectory() as root:
            build, _ = build_dir(root, HEALTHY)
            empty = os.path.join(root, "empty")
            os.makedirs(empty)
            done = subprocess.run([shutil.which("bash"), SCRIPT, build, os.path.join(root, "out")],
                                  capture_output=True, text=True, timeout=60, env={**os.environ, "PATH": empty})
            self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
            self.assertEqual(done.stderr.strip(), f"bundle-for-gpu.sh: {build} is a ninja build but ninja is not on "
                             "PATH (it lists the objects' dependencies)")

    def test_wrong_arguments_are_refused(self):
        done = subprocess.run(["bash", SCRIPT, "only-one"], capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr.strip(), "usage: bundle-for-gpu.sh BUILD_DIR OUT_DIR")


if __name__ == "__main__":
    unittest.main()
