#!/usr/bin/env python3
"""Tests of scripts/device-call.sh (the set-up a device call's script sources) with a stand-in bundle: the
binary unpacked from fla-bench.xz (or copied) and run with the bundle's libraries on its path, the results
folder holding the calling script and the files it names, pack's archive in $OUT, and one line and status 2
for a missing bundle, binary or $OUT; and its checks of a candidate build (a battery compared with a base run,
issue 4's table only on an H100). Plain python3; needs bash, xz and tar."""
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# A call's script as the device runs it (from the repository root), its set-up sourced.
CALLER = """#!/bin/bash
set -u
source scripts/device-call.sh "$@" || exit 2
"$fb" --version > "$R/version.txt"
echo "$LD_LIBRARY_PATH" > "$R/library-path.txt"
pack
"""


# A call's script running the checks a candidate build gets: a battery compared with a base run, and issue
# 4's table on a GPU that is not an H100.
CHECKS_CALLER = """#!/bin/bash
set -u
source scripts/device-call.sh "$1" "$2" || exit 2
battery checkrun '/gla/' "$3" 30
issue4_table "$4" 10
"""

# What the stand-in fla-bench's `check` writes: two cases, one of whose errors differs from BASE_RESULT's.
def check_result(o_error):
    def case(name, tensors):
        return {"name": name, "op": "gla", "family": "accuracy", "dtype": "bf16", "status": "ok",
                "check": {"tensors": [{"tensor": t, "rms_ratio": r, "passed": True} for t, r in tensors]}}
    return {"cases": [case("accuracy/gla/chunk/fwd/bf16/A", [("o", o_error)]),
                      case("accuracy/gla/chunk/fwd/bf16/B", [("o", 1.0e-3)])]}


class DeviceCall(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.out = os.path.join(self.root, "out")
        os.mkdir(self.out)
        self.name = f"devcall-test-{os.getpid()}"  # /tmp/<name> and /tmp/out-<name>: unique to this run
        self.bundle = os.path.join(self.root, self.name)
        os.makedirs(os.path.join(self.bundle, "lib"))
        with open(os.path.join(self.bundle, "lib", "libstandin.so"), "w") as f:
            f.write("")
        self.caller = os.path.join(self.root, "call.sh")
        with open(self.caller, "w") as f:
            f.write(CALLER)
        self.extra = os.path.join(self.root, "ab-build.diff")
        with open(self.extra, "w") as f:
            f.write("a diff\n")

    def tearDown(self):
        self.tmp.cleanup()
        for path in (f"/tmp/{self.name}", f"/tmp/out-{self.name}"):
            shutil.rmtree(path, ignore_errors=True)

    def binary(self, packed):
        script = "#!/bin/sh\necho \"stand-in fla-bench $*\"\n"
        path = os.path.join(self.bundle, "fla-bench")
        with open(path, "w") as f:
            f.write(script)
        os.chmod(path, 0o755)
        if packed:
            subprocess.run(["xz", "-f", path], check=True)

    def call(self, *args, out=True):
        env = {**os.environ, "OUT": self.out} if out else {k: v for k, v in os.environ.items() if k != "OUT"}
        return subprocess.run(["bash", self.caller, *args], cwd=REPO, capture_output=True, text=True,
                              timeout=60, env=env)

    def archive(self):
        with tarfile.open(os.path.join(self.out, self.name + ".tar.xz")) as tar:
            return {m.name: tar.extractfile(m).read().decode() for m in tar.getmembers() if m.isfile()}

    def test_an_xz_bundle_runs_and_its_results_come_back(self):
        self.binary(packed=True)
        done = self.call(self.bundle, self.name, self.extra)
        self.assertEqual(done.returncode, 0, done.stderr)
        files = self.archive()
        folder = f"out-{self.name}/"
        self.assertEqual(files[folder + "version.txt"].strip(), "stand-in fla-bench --version")
        self.assertEqual(files[folder + "device-script.sh"], CALLER)
        self.assertEqual(files[folder + "ab-build.diff"], "a diff\n")
        self.assertTrue(files[folder + "library-path.txt"].startswith(f"/tmp/{self.name}/lib"))
        self.assertTrue(os.path.exists(f"/tmp/{self.name}/lib/libstandin.so"))

    def test_a_plain_binary_is_copied(self):
        self.binary(packed=False)
        done = self.call(self.bundle + "/", self.name)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"out-{self.name}/version.txt", self.archive())

    def test_what_it_cannot_set_up_gets_one_line_and_status_2(self):
        self.binary(packed=True)
        cases = [
            ((os.path.join(self.root, "no-such-bundle"), self.name), True, "no bundle folder"),
            ((self.bundle,), True, "usage"),
            ((self.bundle, self.name), False, "$OUT"),
            ((self.bundle, self.name, os.path.join(self.root, "no-such.diff")), True, "cannot copy"),
        ]
        for args, out, why in cases:
            done = self.call(*args, out=out)
            self.assertEqual(done.returncode, 2, (args, done.stdout, done.stderr))
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertIn(why, done.stderr)
        os.remove(os.path.join(self.bundle, "fla-bench.xz"))
        shutil.rmtree(f"/tmp/{self.name}", ignore_errors=True)
        done = self.call(self.bundle, self.name)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("has no fla-bench", done.stderr)

    def test_a_second_build_is_unpacked_beside_the_first(self):
        self.binary(packed=True)
        base = os.path.join(self.root, self.name + "-base")
        shutil.copytree(self.bundle, base)
        with open(self.caller, "w") as f:
            f.write('#!/bin/bash\nset -u\nsource scripts/device-call.sh "$1" "$2" || exit 2\n'
                    'other=$(unpack_build "$3") || exit 2\n"$other" base-run\n')
        try:
            done = self.call(self.bundle, self.name, base)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn("stand-in fla-bench base-run", done.stdout)
            self.assertTrue(os.access(f"/tmp/{self.name}-base/fb", os.X_OK))
            done = self.call(self.bundle, self.name, os.path.join(self.root, "no-such-bundle"))
            self.assertEqual(done.returncode, 2, done.stdout)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertIn("no bundle folder", done.stderr)
        finally:
            shutil.rmtree(f"/tmp/{self.name}-base", ignore_errors=True)

    def test_the_checks_leave_their_results_and_compare_them(self):
        new_result = os.path.join(self.root, "new.json")
        with open(new_result, "w") as f:
            json.dump(check_result(3.0e-3), f)
        base_result = os.path.join(self.root, "base.json")
        with open(base_result, "w") as f:
            json.dump(check_result(2.0e-3), f)
        # fla-bench: `check ... --out FILE` writes the new result there; nvidia-smi names an H200
        path = os.path.join(self.bundle, "fla-bench")
        with open(path, "w") as f:
            f.write("#!/bin/bash\nout=\"\"\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n"
                    f"cp {new_result} \"$out\"\necho \"2 cases: 2 ok, 0 failed, 0 skipped in 0.1 s\"\n")
        os.chmod(path, 0o755)
        tools = os.path.join(self.root, "tools")
        os.mkdir(tools)
        with open(os.path.join(tools, "nvidia-smi"), "w") as f:
            f.write("#!/bin/sh\necho 'NVIDIA H200'\n")
        os.chmod(os.path.join(tools, "nvidia-smi"), 0o755)
        with open(self.caller, "w") as f:
            f.write(CHECKS_CALLER)
        env = {**os.environ, "OUT": self.out, "PATH": tools + os.pathsep + os.environ["PATH"]}
        done = subprocess.run(["bash", self.caller, self.bundle, self.name, base_result, "peer.md"], cwd=REPO,
                              capture_output=True, text=True, timeout=60, env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("checkrun rc 0", done.stdout)
        self.assertIn("2 cases: 2 ok", done.stdout)
        self.assertIn("errors in both: 2, bit-for-bit the same: 1, changed: 1", done.stdout)
        self.assertIn("issue 4's table: not an H100", done.stdout)
        folder = f"out-{self.name}/"
        with tarfile.open(os.path.join(self.out, self.name + ".tar.xz")) as tar:
            names = set(tar.getnames())
        for name in ("checkrun.json.xz", "checkrun.log", "checkrun-errors.txt"):
            self.assertIn(folder + name, names)
        self.assertNotIn(folder + "issue4-chunk.json.xz", names)

    def test_ncu_kernel_profiles_one_launch_and_keeps_its_pages(self):
        # ncu: the profiling run records its arguments and writes the report; --import prints a page
        tools = os.path.join(self.root, "tools")
        os.mkdir(tools)
        with open(os.path.join(tools, "ncu"), "w") as f:
            f.write("#!/bin/bash\n"
                    "if [ \"$1\" = --import ]; then\n"
                    "  case \"$*\" in *details*) echo '    Duration   us   12.5';; *) echo 'Address,Source';; esac\n"
                    "  exit 0\nfi\n"
                    "echo \"$*\"\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && touch \"$2.ncu-rep\"; shift; done\n")
        os.chmod(os.path.join(tools, "ncu"), 0o755)
        self.binary(packed=True)
        with open(self.caller, "w") as f:
            f.write('#!/bin/bash\nset -u\nsource scripts/device-call.sh "$1" "$2" || exit 2\n'
                    'NCU_SKIP=1 ncu_kernel grads "scalar_grads_wgmma_kernel" 20 --filter "^simple_gla/" --axis T=64\n')
        env = {**os.environ, "OUT": self.out, "PATH": tools + os.pathsep + os.environ["PATH"]}
        done = subprocess.run(["bash", self.caller, self.bundle, self.name], cwd=REPO, capture_output=True,
                              text=True, timeout=60, env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("ncu grads rc 0", done.stdout)
        self.assertIn("Duration", done.stdout)
        folder = f"out-{self.name}/"
        with tarfile.open(os.path.join(self.out, self.name + ".tar.xz")) as tar:
            names = set(tar.getnames())
            run = tar.extractfile(folder + "grads-ncu.log").read().decode()
        for name in ("grads-ncu.log", "grads-details.txt.xz", "grads-source.csv.gz", "grads-regions.txt"):
            self.assertIn(folder + name, names)
        for part in ("-k regex:scalar_grads_wgmma_kernel", "--launch-skip 1", "--launch-count 1",
                     "--filter ^simple_gla/ --axis T=64 --profile-once --no-check"):
            self.assertIn(part, run)


if __name__ == "__main__":
    unittest.main()
