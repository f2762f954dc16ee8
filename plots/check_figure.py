"""The check heatmap: how close each op/variant and dtype comes to its error thresholds, and where checks
failed.

A cell is the worst rms_ratio / threshold over every checked case and tensor of that op/variant and dtype,
so 1 is the pass limit whatever the dtype's threshold; count checks (threshold 0) have no ratio and show
only when they fail.
"""

import math
from dataclasses import dataclass

import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.patches import Rectangle

from figure_output import FigureSink, plt
from fla_results import DTYPE_ORDER, ResultFile, worst_threshold_ratio

# Exact matches (ratio 0) cannot sit on a log scale; they are coloured as this ratio, and labelled "0".
SMALLEST_COLOURED_RATIO = 1e-6
# The colour scale reaches this many decades either side of the limit; further out (such as the largest
# double a check records when the reference is all zero and the output is not) takes the end colour.
MAX_DECADES = 6.0


@dataclass
class _Cell:
    """What one op/variant x dtype cell holds across every checked case that falls in it."""

    checks: int = 0
    failed: int = 0
    worst: float | None = None

    def add(self, check: dict) -> None:
        self.checks += 1
        self.failed += not check["passed"]
        ratio = worst_threshold_ratio(check)
        if ratio is not None:
            self.worst = ratio if self.worst is None else max(self.worst, ratio)


def plot_check_heatmap(results: list[ResultFile], sink: FigureSink) -> None:
    """Draws check_heatmap from every case with a check, in every input; notes a skip when there is none."""
    cells, gpus = _collect_cells(results)
    if not cells:
        sink.note("check_heatmap: skipped: no checked cases in the inputs")
        return
    rows = sorted({row for row, _ in cells})
    # A dtype a later schema adds still gets a column, after the three known ones.
    columns = list(DTYPE_ORDER) + sorted({dtype for _, dtype in cells} - set(DTYPE_ORDER))
    grid = np.full((len(rows), len(columns)), np.nan)
    for (row, dtype), cell in cells.items():
        if cell.worst is not None:
            grid[rows.index(row), columns.index(dtype)] = max(cell.worst, SMALLEST_COLOURED_RATIO)
    norm = _centred_on_limit(grid[~np.isnan(grid)])
    colour_map = plt.get_cmap("RdYlGn_r").copy()  # green well inside the limit, yellow at it, red past it
    colour_map.set_bad("#e8e8e8")  # no ratio: count checks only

    figure, axes = plt.subplots(figsize=(6.5, max(3.2, 1.2 + 0.32 * len(rows))))
    image = axes.imshow(np.ma.masked_invalid(grid), cmap=colour_map, norm=norm, aspect="auto")
    for (row, dtype), cell in cells.items():
        y, x = rows.index(row), columns.index(dtype)
        _annotate(axes, y, x, cell, colour_map(norm(grid[y, x])))
    axes.set_xticks(range(len(columns)), columns)
    axes.set_yticks(range(len(rows)), rows, fontsize=8)
    axes.xaxis.tick_top()
    colour_bar = figure.colorbar(image, ax=axes, fraction=0.06, pad=0.03)
    colour_bar.set_label("error / threshold (above 1 fails)")
    gpu_names = ", ".join(sorted(gpus))
    failed = sum(cell.failed for cell in cells.values())
    axes.set_title(f"Checks on {gpu_names}\nworst error / threshold per op/variant and dtype", fontsize=10)
    sink.save(figure, "check_heatmap",
              f"Checks on {gpu_names}: the worst rms_ratio / threshold over every checked case and tensor, "
              f"per op/variant and dtype; 1 is the pass limit, grey cells have no thresholded tensor. Cells "
              f"holding a failed check say FAIL with failed/checked counts: "
              f"{failed} failed check{'' if failed == 1 else 's'} in all.")


def _collect_cells(results: list[ResultFile]) -> tuple[dict, set[str]]:
    """The cells keyed by (op/variant, dtype), and the GPUs the checks ran on."""
    cells, gpus = {}, set()
    for result in results:
        for case in result.cases:
            if "check" in case:
                gpus.add(result.gpu)
                key = (f"{case['op']}/{case['variant']}", case["dtype"])
                cells.setdefault(key, _Cell()).add(case["check"])
    return cells, gpus


def _centred_on_limit(ratios: np.ndarray) -> LogNorm:
    """A log scale with ratio 1 (the pass limit) in its middle and at least a decade either side, so a cell's
    colour says which side of its threshold it is on: green inside, yellow at it, red past it."""
    decades = min(MAX_DECADES, max([1.0] + [abs(math.log10(ratio)) for ratio in ratios]))
    return LogNorm(vmin=10 ** -decades, vmax=10 ** decades)


def _annotate(axes, row: int, column: int, cell: _Cell, background) -> None:
    """Writes the cell's ratio (and FAIL with a heavy outline where a check failed) in a colour that reads on
    the cell's background."""
    text = "—" if cell.worst is None else ("0" if cell.worst == 0 else f"{cell.worst:.2g}")
    luminance = 0.2126 * background[0] + 0.7152 * background[1] + 0.0722 * background[2]
    colour = "white" if luminance < 0.5 else "black"
    if cell.failed:
        text = f"FAIL {cell.failed}/{cell.checks}  {text}"
        axes.add_patch(Rectangle((column - 0.5, row - 0.5), 1, 1, fill=False, edgecolor="black",
                                 linewidth=2.5))
    axes.text(column, row, text, ha="center", va="center", fontsize=7, color=colour,
              fontweight="bold" if cell.failed else "normal")
