"""History figures: each case's median over a series of runs, with the changes `fla-bench history` flagged.

One figure per GPU, because medians from different GPUs are not one series. Panels are small multiples, one
per case, the worst-flagged first, capped so the figure stays readable.
"""

import math

from figure_output import FigureSink, plt
from fla_results import gpu_slug, group_by

MAX_PANELS = 24
PANEL_COLUMNS = 4
MAX_RUN_TICKS = 6  # per panel: more dates than this overlap
FLAG_COLOURS = {"slower": "tab:red", "faster": "tab:green"}
DEFAULT_THRESHOLD_PCT = 5.0  # fla-bench history's default --threshold, for a file whose settings lack it


def plot_history(history: dict, sink: FigureSink) -> None:
    """Draws history_<gpu-slug> for each GPU the history's runs come from."""
    runs = history["runs"]
    if not runs or not history["cases"]:
        sink.note("history: skipped: the history file has no runs or no cases")
        return
    runs_by_gpu = group_by(range(len(runs)), lambda index: runs[index].get("gpu") or "unknown GPU")
    for gpu, run_indices in runs_by_gpu.items():
        _plot_gpu_history(history, gpu, run_indices, sink)


def _plot_gpu_history(history: dict, gpu: str, run_indices: list[int], sink: FigureSink) -> None:
    stem = f"history_{gpu_slug(gpu)}"
    panels = _panels(history["cases"], run_indices)
    if not panels:
        sink.note(f"{stem}: skipped: no case has a median on {gpu}")
        return
    shown = panels[:MAX_PANELS]
    if len(shown) < len(panels):
        sink.note(f"{stem}: shows {len(shown)} of {len(panels)} cases, the worst-flagged first")
    columns = min(PANEL_COLUMNS, len(shown))
    rows = math.ceil(len(shown) / columns)
    figure, grid = plt.subplots(rows, columns, figsize=(3.7 * columns, 2.6 * rows + 0.6), squeeze=False,
                                layout="constrained")
    labels = _run_labels([history["runs"][run] for run in run_indices])
    settings = history.get("settings", {})
    position = {run: place for place, run in enumerate(run_indices)}
    for axes, (name, medians, flags) in zip(grid.flat, shown):
        _draw_panel(axes, name, medians, [(position[flag["run"]], flag) for flag in flags], labels)
        _span_at_least_threshold(axes, medians, settings.get("threshold_pct", DEFAULT_THRESHOLD_PCT))
    for axes in grid.flat[len(shown):]:
        axes.set_visible(False)
    for axes in grid[:, 0]:
        axes.set_ylabel("median (ms)", fontsize=8)
    rule = (f"lookback {settings.get('lookback', '?')} runs, "
            f"threshold {settings.get('threshold_pct', '?')}%, min z {settings.get('min_z', '?')}")
    figure.suptitle(f"History on {gpu}: {len(run_indices)} runs, oldest left; flagged runs red (slower) or "
                    f"green (faster), hollow where a spike\n{rule}", fontsize=10)
    sink.save(figure, stem,
              f"Median time per run on {gpu} ({len(run_indices)} runs, oldest left), one panel per case "
              f"({len(shown)} of {len(panels)}, the worst-flagged first); red and green points are runs "
              f"`fla-bench history` flagged slower or faster ({rule}), labelled with the change, and with "
              f"the flag's kind where it is a spike (back by the next run) or unconfirmed (the newest run).")


def _panels(cases: list[dict], run_indices: list[int]) -> list[tuple[str, list, list]]:
    """(name, medians, flags) over the given runs for each case with a median in them, the worst first."""
    panels = []
    for case in cases:
        medians = [case["medians_ms"][run] for run in run_indices]
        if any(median is not None for median in medians):
            flags = [flag for flag in case.get("flags", []) if flag["run"] in run_indices]
            panels.append((case["name"], medians, flags))
    return sorted(panels, key=_severity)


def _severity(panel) -> tuple:
    """Slowdowns first (largest first), then speed-ups, then cases with spikes only, then unflagged ones by
    name. A spike came back by the next run, so it matters less than a step of any size."""
    name, _, flags = panel
    lasting = [flag for flag in flags if flag.get("kind") != "spike"]
    slowdowns = [abs(flag["change_pct"]) for flag in lasting if flag["direction"] == "slower"]
    changes = [abs(flag["change_pct"]) for flag in (lasting or flags)]
    rank = 0 if slowdowns else 1 if lasting else 2 if flags else 3
    return rank, -max(slowdowns or changes or [0.0]), name


def _run_labels(runs: list[dict]) -> list[str]:
    """Tick labels from started_utc: the month and day, with the time where a day holds several runs and the
    year where the runs span years."""
    stamps = [run.get("started_utc", "") for run in runs]
    dates = [stamp[:10] for stamp in stamps]
    several_years = len({date[:4] for date in dates}) > 1
    labels = [date if several_years else date[5:] for date in dates]
    if len(set(dates)) < len(dates):
        labels = [f"{label} {stamp[11:16]}" for label, stamp in zip(labels, stamps)]
    return labels


def _draw_panel(axes, name: str, medians: list, placed_flags: list[tuple[int, dict]],
                labels: list[str]) -> None:
    """One case's medians (a gap where a run lacks one), its flagged runs marked and labelled with the change;
    placed_flags pairs each flag with its run's place on the x axis."""
    places = range(len(medians))
    # None (missing or failed in that run) becomes NaN, which leaves a gap in the line.
    values = [math.nan if median is None else median for median in medians]
    axes.plot(places, values, marker="o", markersize=2.5, linewidth=1, color="tab:blue")
    for place, flag in placed_flags:
        if medians[place] is None:
            continue
        colour = FLAG_COLOURS.get(flag["direction"], "black")
        # A step (or a flag the next run has yet to confirm) is filled; a spike, which came back, is hollow.
        kind = flag.get("kind", "step")
        axes.plot(place, medians[place], marker="o", markersize=6, color=colour, zorder=3,
                  markerfacecolor="white" if kind == "spike" else colour)
        label = f"{flag['change_pct']:+.1f}%" + ("" if kind == "step" else f" ({kind})")
        axes.annotate(label, (place, medians[place]), xytext=(0, 6), textcoords="offset points", ha="center",
                      fontsize=7, color=colour, fontweight="bold")
    axes.margins(x=0.05, y=0.3)  # headroom for the change labels above flagged points
    last = len(medians) - 1
    ticks = sorted({round(step * last / (MAX_RUN_TICKS - 1)) for step in range(MAX_RUN_TICKS)})
    axes.set_xticks(ticks, [labels[tick] for tick in ticks], rotation=45, ha="right", fontsize=6)
    axes.tick_params(axis="y", labelsize=7)
    axes.set_title(name, fontsize=7)
    axes.grid(True, alpha=0.3)


def _span_at_least_threshold(axes, medians: list, threshold_pct: float) -> None:
    """Widens the y axis to at least +-threshold around the median of the medians: autoscaled, a quiet case's
    noise of 1% would fill the panel and look like the steps drawn beside it."""
    values = sorted(median for median in medians if median is not None)
    centre = values[len(values) // 2]
    low, high = axes.get_ylim()
    half_span = centre * threshold_pct / 100
    axes.set_ylim(min(low, centre - half_span), max(high, centre + half_span))
