#!/usr/bin/env python3
"""Tests of plots/plot_results.py and plots/report.py on small fixture result files (plot_fixtures.py).

Run from anywhere:  /usr/bin/python3 tests/plots/test_plots.py
Where matplotlib is missing it prints SKIPPED and exits with 77, ctest's skip code (SKIP_RETURN_CODE 77).
The scripts run as subprocesses, as a user runs them, so exit statuses and stderr lines are tested too.
"""

import importlib.util
import json
import lzma
import os
import subprocess
import sys
import tempfile
import unittest
from html.parser import HTMLParser
from xml.etree import ElementTree

TEST_DIR = os.path.dirname(os.path.abspath(__file__))
PLOTS_DIR = os.path.join(os.path.dirname(os.path.dirname(TEST_DIR)), "plots")
# plot_fixtures.py, and fla_results.py for the in-process tests (partial and compressed files)
sys.path[:0] = [TEST_DIR, PLOTS_DIR]

SKIP_MESSAGE = "SKIPPED: matplotlib is not installed (apt-get install python3-matplotlib)"
if importlib.util.find_spec("matplotlib") is None:
    if __name__ == "__main__":
        print(SKIP_MESSAGE)
        sys.exit(77)
    raise unittest.SkipTest(SKIP_MESSAGE)

import plot_fixtures as fixtures  # noqa: E402
import fla_results  # noqa: E402

from plot_fixtures import FAILED_CASE, FAILED_REASON, GPU_A, GPU_B  # noqa: E402

INPUT_ERROR_STATUS = 2
SVG_TEXT = "{http://www.w3.org/2000/svg}text"
FIGURE_STEMS = ("time_vs_T_gla_fwd_bf16", "floor_pct_gla_fwd_bf16", "gpu_vs_gpu_gla_fwd_bf16",
                "check_heatmap", f"history_{fla_results.gpu_slug(GPU_A)}")


def run_script(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, os.path.join(PLOTS_DIR, script), *args], capture_output=True,
                          text=True, timeout=300, check=False)


def svg_texts(path: str) -> list[str]:
    """The text of every <text> element: with svg.fonttype none, each label is one (a line of one)."""
    return ["".join(element.itertext()).strip() for element in ElementTree.parse(path).iter(SVG_TEXT)]


def write_inputs(folder: str) -> tuple[str, str]:
    """Two GPUs' timed runs and a check run in one folder, and a history file; returns both paths."""
    results = os.path.join(folder, "results")
    fixtures.write_json(os.path.join(results, "a.json"), fixtures.timed_run(GPU_A, slowdown=1.0))
    fixtures.write_json(os.path.join(results, "b.json"), fixtures.timed_run(GPU_B, slowdown=0.7))
    fixtures.write_json(os.path.join(results, "check.json"), fixtures.check_run(GPU_A))
    names = [case["name"] for case in fixtures.timed_run(GPU_A, 1.0)["cases"]]
    history = fixtures.write_json(os.path.join(folder, "history.json"), fixtures.history(GPU_A, names))
    return results, history


def files_in(folder: str) -> set[str]:
    return {os.path.join(folder, name) for name in os.listdir(folder)}


class FiguresTest(unittest.TestCase):
    """plot_results.py on a folder of three files from two GPUs, with a history file."""

    @classmethod
    def setUpClass(cls):
        cls.temp = tempfile.TemporaryDirectory()
        cls.results, cls.history = write_inputs(cls.temp.name)
        cls.outdir = os.path.join(cls.temp.name, "figures")
        cls.plotting = run_script("plot_results.py", cls.results, "-o", cls.outdir, "--history", cls.history)

    @classmethod
    def tearDownClass(cls):
        cls.temp.cleanup()

    def texts(self, stem: str) -> list[str]:
        return svg_texts(os.path.join(self.outdir, f"{stem}.svg"))

    def test_prints_every_file_it_writes(self):
        self.assertEqual(self.plotting.returncode, 0, self.plotting.stderr)
        self.assertEqual(set(self.plotting.stdout.splitlines()), files_in(self.outdir))

    def test_writes_each_figure_as_png_and_svg(self):
        for stem in FIGURE_STEMS:
            with self.subTest(stem=stem):
                with open(os.path.join(self.outdir, f"{stem}.png"), "rb") as png:
                    header = png.read(24)
                self.assertEqual(header[:8], b"\x89PNG\r\n\x1a\n")
                width, height = int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")
                self.assertGreater(min(width, height), 200)
                self.assertTrue(self.texts(stem), "the SVG has no text: svg.fonttype is not 'none'")

    def test_time_vs_t_has_a_line_per_variant_and_gpu(self):
        texts = self.texts("time_vs_T_gla_fwd_bf16")
        for variant in fixtures.VARIANTS:
            for gpu in (GPU_A, GPU_B):
                self.assertIn(f"{variant} ({gpu})", texts)
        for length in fixtures.LENGTHS:
            self.assertIn(str(length), texts)

    def test_floor_pct_labels_bars_with_their_values(self):
        texts = self.texts("floor_pct_gla_fwd_bf16")
        case = fixtures.timed_run(GPU_B, slowdown=0.7)["cases"][0]
        self.assertIn(f"{case['derived']['floor_pct']:.3g}", texts)
        self.assertIn(f"{case['variant']} ({GPU_B})", texts)
        self.assertIn("B2-T16384-H4-K64-V64", texts)

    def test_gpu_vs_gpu_has_a_bar_series_per_gpu(self):
        texts = self.texts("gpu_vs_gpu_gla_fwd_bf16")
        self.assertIn(GPU_A, texts)
        self.assertIn(GPU_B, texts)

    def test_check_heatmap_marks_the_failed_check(self):
        texts = self.texts("check_heatmap")
        failing = [text for text in texts if "FAIL" in text]
        self.assertEqual(len(failing), 1, texts)
        self.assertIn("3", failing[0])  # the failed dk is 3x its threshold
        self.assertTrue(any(GPU_A in text for text in texts), "the title does not name the GPU")
        self.assertIn("gla/fused_recurrent", texts)

    def test_history_marks_flagged_runs_with_their_change(self):
        texts = self.texts(f"history_{fla_results.gpu_slug(GPU_A)}")
        self.assertIn(fixtures.HISTORY_CHANGE_LABEL, texts)
        self.assertIn("-7.5%", texts)
        self.assertIn("+12.0% (spike)", texts)
        titles = [text for text in texts if text.startswith("gla/")]
        self.assertEqual(titles[0], "gla/naive/fwd/bf16/B2-T1024-H4-K64-V64", "the step slower is not first")
        self.assertIn("11-23", texts)  # runs are labelled with their dates

    def test_the_same_inputs_give_the_same_bytes(self):
        again = os.path.join(self.temp.name, "again")
        rerun = run_script("plot_results.py", self.results, "-o", again, "--history", self.history)
        self.assertEqual(rerun.returncode, 0, rerun.stderr)
        for path in sorted(files_in(self.outdir)):
            with self.subTest(file=os.path.basename(path)):
                twin = os.path.join(again, os.path.basename(path))
                with open(path, "rb") as first, open(twin, "rb") as second:
                    self.assertEqual(first.read(), second.read())


class SkippedFiguresTest(unittest.TestCase):
    def test_one_gpu_and_one_length_skip_their_figures_with_notes(self):
        single = fixtures.timed_run(GPU_A, slowdown=1.0)
        single["cases"] = [case for case in single["cases"] if case["axes"]["T"] == 1024]
        with tempfile.TemporaryDirectory() as temp:
            path = fixtures.write_json(os.path.join(temp, "single.json"), single)
            outdir = os.path.join(temp, "out")
            run = run_script("plot_results.py", path, "-o", outdir, "--formats", "svg")
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertEqual(sorted(os.listdir(outdir)), ["check_heatmap.svg", "floor_pct_gla_fwd_bf16.svg"])
        notes = run.stderr.splitlines()
        self.assertEqual(len(notes), 2, notes)
        self.assertTrue(any("time_vs_T" in note and "sequence lengths" in note for note in notes), notes)
        self.assertTrue(any("gpu_vs_gpu" in note and GPU_A in note for note in notes), notes)


class RefusalTest(unittest.TestCase):
    """A file the scripts cannot read stops them with one stderr line naming it and exit status 2."""

    def bad_files(self, folder: str) -> dict[str, str]:
        document = fixtures.timed_run(GPU_A, slowdown=1.0)
        other_schema = {**document, "schema": "other"}
        next_major = {**document, "schema_version": "2.0.0"}
        paths = {"not JSON": os.path.join(folder, "notes.json")}
        with open(paths["not JSON"], "w", encoding="utf-8") as file:
            file.write("median 5.2 ms\n")
        paths["schema other"] = fixtures.write_json(os.path.join(folder, "other.json"), other_schema)
        paths["version 2"] = fixtures.write_json(os.path.join(folder, "v2.json"), next_major)
        paths["truncated"] = fixtures.write_json(os.path.join(folder, "cut.json"), document)
        with open(paths["truncated"], "r+", encoding="utf-8") as file:
            file.truncate(len(file.read()) // 2)
        paths["damaged xz"] = os.path.join(folder, "cut.json.xz")
        with open(paths["damaged xz"], "wb") as file:
            file.write(lzma.compress(json.dumps(document).encode())[:-40])
        return paths

    def assert_refused(self, run: subprocess.CompletedProcess, path: str) -> None:
        self.assertEqual(run.returncode, INPUT_ERROR_STATUS, run.stderr)
        lines = run.stderr.splitlines()
        self.assertEqual(len(lines), 1, lines)
        self.assertIn(path, lines[0])
        self.assertEqual(run.stdout, "")

    def test_plot_results_refuses_bad_files(self):
        with tempfile.TemporaryDirectory() as temp:
            good = fixtures.write_json(os.path.join(temp, "good", "a.json"), fixtures.timed_run(GPU_A, 1.0))
            for kind, path in self.bad_files(temp).items():
                with self.subTest(kind=kind):
                    outdir = os.path.join(temp, f"out-{kind}")
                    self.assert_refused(run_script("plot_results.py", good, path, "-o", outdir), path)
                    self.assertFalse(os.path.exists(outdir), "figures were written despite the refusal")

    def test_report_refuses_a_bad_file_and_a_bad_history(self):
        with tempfile.TemporaryDirectory() as temp:
            results, _ = write_inputs(temp)
            bad = self.bad_files(temp)["version 2"]
            self.assert_refused(run_script("report.py", bad, "-o", os.path.join(temp, "r1")), bad)
            wrong_history = os.path.join(results, "a.json")  # a result file is not a history file
            run = run_script("report.py", results, "-o", os.path.join(temp, "r2"), "--history", wrong_history)
            self.assert_refused(run, wrong_history)

    def test_an_outdir_that_cannot_be_made_is_an_error(self):
        with tempfile.TemporaryDirectory() as temp:
            good = fixtures.write_json(os.path.join(temp, "a.json"), fixtures.timed_run(GPU_A, 1.0))
            run = run_script("plot_results.py", good, "-o", good)  # a file where the folder should be
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
        self.assertIn(good, run.stderr)


class PartialFileTest(unittest.TestCase):
    """A .partial file is the JSON Lines form of a run in progress; a crash can cut its last line short."""

    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        self.addCleanup(self.temp.cleanup)
        self.document = fixtures.timed_run(GPU_A, slowdown=1.0)
        self.names = [case["name"] for case in self.document["cases"]]

    def path(self, name: str) -> str:
        return os.path.join(self.temp.name, name)

    def test_a_cut_off_last_line_is_dropped_and_the_rest_read(self):
        path = fixtures.write_partial(self.path("run.json.partial"), self.document)
        partial = fla_results.read_result_file(path)
        self.assertFalse(partial.complete)
        self.assertEqual([case["name"] for case in partial.cases], self.names[:-1])
        self.assertEqual(partial.gpu, GPU_A)

    def test_an_intact_partial_file_is_read_whole(self):
        path = fixtures.write_partial(self.path("run.json.partial"), self.document, cut_last_line=False)
        self.assertEqual([case["name"] for case in fla_results.read_result_file(path).cases], self.names)

    def test_an_xz_compressed_partial_file_is_read(self):
        path = fixtures.write_partial(self.path("run.json.partial"), self.document)
        with open(path, "rb") as file, open(self.path("run.json.partial.xz"), "wb") as out:
            out.write(lzma.compress(file.read()))
        partial = fla_results.read_result_file(self.path("run.json.partial.xz"))
        self.assertEqual([case["name"] for case in partial.cases], self.names[:-1])

    def test_a_damaged_line_before_the_last_is_refused(self):
        path = fixtures.write_partial(self.path("run.json.partial"), self.document, cut_last_line=False)
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
        lines[2] = lines[2][:20]
        with open(path, "w", encoding="utf-8") as file:
            file.write("\n".join(lines))
        with self.assertRaisesRegex(fla_results.InputError, "line 3"):
            fla_results.read_result_file(path)

    def test_plot_results_draws_from_a_partial_file(self):
        path = fixtures.write_partial(self.path("run.json.partial"), self.document)
        run = run_script("plot_results.py", path, "-o", self.path("out"), "--formats", "svg")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn(self.path("out/time_vs_T_gla_fwd_bf16.svg"), run.stdout.splitlines())


class CompressedFileTest(unittest.TestCase):
    """Baselines are committed as .json.xz: read as they are, named or found in a folder."""

    def test_an_xz_file_reads_as_its_json(self):
        with tempfile.TemporaryDirectory() as temp:
            document = fixtures.timed_run(GPU_A, slowdown=1.0)
            plain = fla_results.read_result_file(fixtures.write_json(os.path.join(temp, "a.json"), document))
            packed = os.path.join(temp, "b.json.xz")
            with open(packed, "wb") as file:
                file.write(lzma.compress(json.dumps(document).encode()))
            self.assertEqual(fla_results.read_result_file(packed).cases, plain.cases)
            self.assertEqual(fla_results.expand_inputs([temp]), [os.path.join(temp, "a.json"), packed])

    def test_plot_results_draws_from_an_xz_file(self):
        with tempfile.TemporaryDirectory() as temp:
            packed = os.path.join(temp, "run.json.xz")
            with open(packed, "wb") as file:
                file.write(lzma.compress(json.dumps(fixtures.timed_run(GPU_A, 1.0)).encode()))
            run = run_script("plot_results.py", packed, "-o", os.path.join(temp, "out"), "--formats", "svg")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn(os.path.join(temp, "out/time_vs_T_gla_fwd_bf16.svg"), run.stdout.splitlines())


class PageChecker(HTMLParser):
    """Collects image sources, links and text, and records every closing tag that does not match."""

    VOID = {"meta", "img", "br", "hr", "link", "input"}

    def __init__(self):
        super().__init__()
        self.open_tags, self.errors, self.images, self.links, self.text = [], [], [], [], []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "img":
            self.images.append(attributes["src"])
        if tag == "a":
            self.links.append(attributes["href"])
        if tag not in self.VOID:
            self.open_tags.append(tag)

    def handle_endtag(self, tag):
        if not self.open_tags or self.open_tags.pop() != tag:
            self.errors.append(f"unexpected </{tag}> at {self.getpos()}")

    def handle_data(self, data):
        self.text.append(data)


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.temp = tempfile.TemporaryDirectory()
        results, history = write_inputs(cls.temp.name)
        cls.outdir = os.path.join(cls.temp.name, "report")
        cls.reporting = run_script("report.py", results, "-o", cls.outdir, "--history", history)
        cls.index = os.path.join(cls.outdir, "index.html")
        with open(cls.index, encoding="utf-8") as page:
            cls.html = page.read()
        cls.page = PageChecker()
        cls.page.feed(cls.html)
        cls.page.close()
        cls.text = " ".join(cls.page.text)

    @classmethod
    def tearDownClass(cls):
        cls.temp.cleanup()

    def test_prints_the_page_path(self):
        self.assertEqual(self.reporting.returncode, 0, self.reporting.stderr)
        self.assertEqual(self.reporting.stdout.splitlines(), [self.index])

    def test_page_is_well_formed(self):
        self.assertEqual(self.page.errors, [])
        self.assertEqual(self.page.open_tags, [])

    def test_every_figure_is_shown_and_every_reference_exists(self):
        written = {name for name in os.listdir(self.outdir) if name != "index.html"}
        self.assertEqual(len(written), 2 * len(FIGURE_STEMS))
        local = [link for link in self.page.links if not link.startswith("#")]
        self.assertEqual(set(self.page.images) | set(local), written)
        self.assertEqual({image[:-4] for image in self.page.images}, set(FIGURE_STEMS))
        for reference in self.page.images + local:
            self.assertTrue(os.path.isfile(os.path.join(self.outdir, reference)), reference)

    def test_tables_hold_the_cases(self):
        self.assertGreaterEqual(self.html.count("<table>"), 6)
        for header in ("median ms", "IQR spread %", "tokens/s", "GB/s", "% of floor"):
            self.assertIn(f"<th>{header}</th>", self.html)
        for case in fixtures.timed_run(GPU_A, 1.0)["cases"]:
            self.assertIn(case["name"], self.text)
        self.assertIn(FAILED_CASE, self.text)
        self.assertIn(FAILED_REASON, self.text)
        self.assertIn("naive keeps the 256x256 fp32 state in shared memory", self.text)
        self.assertIn("19 cases in 3 files: 17 ok, 1 failed, 1 skipped.", self.text)
        self.assertIn(fixtures.FAILED_REPRODUCE, self.text)
        failing_row = '<td>dk</td><td class="num">0.003</td><td class="num">0.001</td><td class="num">3</td>'
        self.assertIn(failing_row, self.html)

    def test_provenance_is_escaped(self):
        self.assertIn("0123456789abcdef0123456789abcdef01234567", self.text)
        self.assertIn(GPU_B, self.text)
        self.assertNotIn(fixtures.HOSTILE_ARGUMENT, self.html)
        self.assertIn(fixtures.HOSTILE_ARGUMENT, self.text)  # shown as text, after unescaping


if __name__ == "__main__":
    unittest.main()
