"""The harness of the speed-table scripts' tests: a fixture PEER.md in a temporary folder, a run file per test,
the script run as a user runs it, and its markdown rows keyed by (op, mode, shape)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts")


class PeerTableTest(unittest.TestCase):
    SCRIPT = None  # the script's file name in scripts/
    PEER = ""  # the anchors' text

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.peer = os.path.join(self.dir.name, "peer.md")
        with open(self.peer, "w") as out:
            out.write(self.PEER)

    def tearDown(self):
        self.dir.cleanup()

    def run_script(self, *args):
        return subprocess.run([sys.executable, os.path.join(SCRIPTS, self.SCRIPT), *args], capture_output=True,
                              text=True)

    def run_table(self, cases):
        result = os.path.join(self.dir.name, "run.json")
        with open(result, "w") as out:
            json.dump({"cases": cases}, out)
        return self.run_script(result, self.peer)

    def rows(self, text):
        return {tuple(cell.strip() for cell in line.split("|")[1:4]): [cell.strip() for cell in line.split("|")[4:-1]]
                for line in text.splitlines() if line.startswith("| ") and not line.startswith("| op")}
