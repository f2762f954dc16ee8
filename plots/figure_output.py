"""Matplotlib set-up and figure saving shared by every figure module.

Importing this module selects the file-only Agg backend and the SVG settings before any figure exists, so each
figure module imports pyplot from here rather than setting matplotlib up itself.
"""

import os
from dataclasses import dataclass, field

import matplotlib

matplotlib.use("Agg")  # files only: no display is needed, and none may exist on a build machine

import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen before pyplot is imported)

# Text stays text in SVG files: searchable, selectable, and what the tests look for.
plt.rcParams["svg.fonttype"] = "none"
# Fixed SVG element ids, so the same data gives byte-identical files.
plt.rcParams["svg.hashsalt"] = "fla-bench"

SUPPORTED_FORMATS = ("png", "svg")
PNG_DPI = 110

# Matplotlib writes the time of saving into SVG metadata; dropping it keeps the output deterministic.
_SAVE_METADATA = {"png": {}, "svg": {"Date": None}}


@dataclass(frozen=True)
class WrittenFigure:
    """One figure as saved: its file name without extension, a caption for the report, every file written."""

    stem: str
    caption: str
    paths: tuple[str, ...]


@dataclass
class FigureSink:
    """Saves figures into one folder in the chosen formats and remembers what it wrote and what was skipped,
    so plot_results.py can print the paths and report.py can caption the figures and list the notes."""

    outdir: str
    formats: tuple[str, ...] = SUPPORTED_FORMATS
    written: list[WrittenFigure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def save(self, figure, stem: str, caption: str) -> None:
        """Writes the figure in every format, then closes it so long runs do not pile up open figures."""
        paths = []
        for file_format in self.formats:
            path = os.path.join(self.outdir, f"{stem}.{file_format}")
            figure.savefig(path, format=file_format, dpi=PNG_DPI, bbox_inches="tight",
                           metadata=_SAVE_METADATA[file_format])
            paths.append(path)
        plt.close(figure)
        self.written.append(WrittenFigure(stem, caption, tuple(paths)))

    def note(self, text: str) -> None:
        """Records why a figure was not drawn, or not in full; the callers print these notes on stderr."""
        self.notes.append(text)


def log_scale_if_wide(axes, values, decades: float = 2.0) -> None:
    """Switches the y axis to log when the positive values span more than `decades` powers of ten, so a slow
    variant does not flatten a fast one to an invisible bar."""
    positive = [value for value in values if value > 0]
    if positive and max(positive) > min(positive) * 10 ** decades:
        axes.set_yscale("log")


def legend_outside(axes, title: str | None = None) -> None:
    """Puts the legend to the right of the axes, where it cannot cover data; savefig's tight bounding box
    makes room for it."""
    axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, title=title, title_fontsize=8,
                frameon=False)
