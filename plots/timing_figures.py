"""Figures of timed cases: time and tokens/s against sequence length, % of the byte floor, GPU against GPU.

Each figure covers one (op, mode, dtype) group, because times of different ops, modes or dtypes are not
comparable. When the inputs come from several GPUs, the GPU is part of every series in the first two figures.
"""

import numpy as np
from matplotlib.ticker import NullLocator

from figure_output import FigureSink, legend_outside, log_scale_if_wide, plt
from fla_results import (GpuCase, group_by, group_key, group_sort_key, heads_label, latest_timed_cases,
                         shape_label, variant_label)

BAR_VALUE_LABEL_LIMIT = 40  # more bars than this and their value labels would overlap


def plot_timing_figures(results, sink: FigureSink) -> None:
    """Draws every timing figure the inputs allow, noting on the sink each kind that could not be drawn."""
    timed = latest_timed_cases(results)
    if not timed:
        for kind in ("time_vs_T", "floor_pct", "gpu_vs_gpu"):
            sink.note(f"{kind}: skipped: no timed cases in the inputs")
        return
    groups = sorted(group_by(timed, lambda item: group_key(item.case)).items(),
                    key=lambda entry: group_sort_key(entry[0]))
    several_gpus = len({item.gpu for item in timed}) > 1
    single_length = [key for key, items in groups if not _time_vs_t(key, items, several_gpus, sink)]
    if single_length:
        sink.note(f"time_vs_T: skipped for {len(single_length)} of {len(groups)} op/mode/dtype groups "
                  f"({_group_names(single_length)}): no B/H/K/V shape was timed at 2 or more "
                  f"sequence lengths")
    for key, items in groups:
        _floor_pct(key, items, several_gpus, sink)
    if not several_gpus:
        sink.note(f"gpu_vs_gpu: skipped: every timed case comes from one GPU ({timed[0].gpu})")
        return
    unshared = [key for key, items in groups if not _gpu_vs_gpu(key, items, sink)]
    if unshared:
        sink.note(f"gpu_vs_gpu: skipped for {len(unshared)} of {len(groups)} op/mode/dtype groups "
                  f"({_group_names(unshared)}): no case was timed on 2 or more GPUs")


def _group_names(keys: list[tuple[str, str, str]], shown: int = 4) -> str:
    names = ["/".join(key) for key in keys[:shown]]
    return ", ".join(names) + (f", and {len(keys) - shown} more" if len(keys) > shown else "")


def _stem(kind: str, key: tuple[str, str, str]) -> str:
    return "_".join((kind, *key))


def _title(key: tuple[str, str, str]) -> str:
    return " ".join(key)


def _series_label(item: GpuCase, with_heads: bool, with_gpu: bool) -> str:
    """The legend label: the variant, then the shape and the GPU only where the figure holds several."""
    label = variant_label(item.case)
    if with_heads:
        label += " " + heads_label(item.case["axes"])
    return f"{label} ({item.gpu})" if with_gpu else label


def _time_vs_t(key, items: list[GpuCase], several_gpus: bool, sink: FigureSink) -> bool:
    """Median time and tokens/s against T, one line per variant and B/H/K/V shape. Returns False, drawing
    nothing, when no line would have 2 points."""
    def line_key(item):
        axes = item.case["axes"]
        return variant_label(item.case), axes["B"], axes["H"], axes["K"], axes["V"], item.gpu

    lines = [sorted(points, key=lambda item: item.case["axes"]["T"])
             for points in group_by(items, line_key).values()
             if len({item.case["axes"]["T"] for item in points}) >= 2]
    if not lines:
        return False
    several_shapes = len({heads_label(points[0].case["axes"]) for points in lines}) > 1
    figure, (time_axes, rate_axes) = plt.subplots(1, 2, figsize=(11, 4.2))
    for points in lines:
        label = _series_label(points[0], several_shapes, several_gpus)
        lengths = [item.case["axes"]["T"] for item in points]
        timings = [item.case["timing"] for item in points]
        medians = np.array([timing["median_ms"] for timing in timings])
        spread = np.array([medians - [timing["q1_ms"] for timing in timings],
                           [timing["q3_ms"] for timing in timings] - medians])
        drawn = time_axes.errorbar(lengths, medians, yerr=spread, marker="o", markersize=4, capsize=2,
                                   label=label)
        rate_axes.plot(lengths, [item.case["derived"]["tokens_per_s"] for item in points], marker="o",
                       markersize=4, color=drawn[0].get_color(), label=label)
    all_lengths = sorted({item.case["axes"]["T"] for points in lines for item in points})
    for axes, ylabel in ((time_axes, "median time (ms)"), (rate_axes, "tokens / s")):
        _length_axis(axes, all_lengths)
        axes.set_yscale("log")
        axes.set_ylabel(ylabel)
    time_axes.set_title("median time (bars: interquartile range)", fontsize=10)
    rate_axes.set_title("throughput", fontsize=10)
    legend_outside(rate_axes)
    figure.suptitle(f"{_title(key)}: time and throughput against sequence length")
    sink.save(figure, _stem("time_vs_T", key),
              f"{_title(key)}: median time (ms; error bars: interquartile range) and tokens/s against "
              f"sequence length T, log-log, one line per variant{' and shape' if several_shapes else ''}"
              f"{' and GPU' if several_gpus else ''}.")
    return True


def _length_axis(axes, lengths: list[int]) -> None:
    """A log2 x axis ticked at exactly the sequence lengths measured, which are what a reader looks up."""
    axes.set_xscale("log", base=2)
    axes.set_xticks(lengths, [str(length) for length in lengths], rotation=45 if len(lengths) > 6 else 0)
    axes.xaxis.set_minor_locator(NullLocator())
    axes.set_xlabel("sequence length T (tokens)")
    axes.grid(True, which="both", alpha=0.3)


def _floor_pct(key, items: list[GpuCase], several_gpus: bool, sink: FigureSink) -> None:
    """% of the byte floor per shape (x) and variant (bars): how near each kernel gets to memory-bound
    speed."""
    shape_names = {_shape_sort_key(item.case["axes"]): shape_label(item.case["axes"]) for item in items}
    shapes = sorted(shape_names)
    series = {_series_label(members[0], False, several_gpus):
              {_shape_sort_key(item.case["axes"]): item.case["derived"]["floor_pct"] for item in members}
              for members in group_by(items, lambda item: (variant_label(item.case), item.gpu)).values()}
    figure, axes = plt.subplots(figsize=(max(6.0, 0.4 * len(shapes) * len(series) + 2.5), 4.2))
    log_scale_if_wide(axes, _grouped_bars(axes, shapes, series))
    axes.set_xticks(range(len(shapes)), [shape_names[shape] for shape in shapes], rotation=20, ha="right")
    axes.set_xlabel("shape")
    axes.set_ylabel("% of byte floor (100 = memory-bound ideal)")
    axes.grid(True, axis="y", which="both", alpha=0.3)
    legend_outside(axes, title="variant")
    axes.set_title(f"{_title(key)}: % of the byte floor")
    sink.save(figure, _stem("floor_pct", key),
              f"{_title(key)}: % of the byte floor per shape and variant (derived.floor_pct: the time the "
              f"floor bytes take at the floor bandwidth over the median time; 100% is the memory-bound "
              f"ideal).")


def _shape_sort_key(axes: dict) -> tuple[int, ...]:
    """Shapes sort by sequence length first, the axis the suites sweep."""
    return axes["T"], axes["B"], axes["H"], axes["K"], axes["V"]


def _grouped_bars(axes, categories: list, series: dict[str, dict]) -> list[float]:
    """Draws one bar per series within each category (a missing value leaves a gap); returns the values."""
    width = 0.8 / len(series)
    drawn = []
    for index, (label, by_category) in enumerate(series.items()):
        offset = (index - (len(series) - 1) / 2) * width
        present = [(place, by_category[category]) for place, category in enumerate(categories)
                   if category in by_category]
        values = [value for _, value in present]
        bars = axes.bar([place + offset for place, _ in present], values, width=width * 0.95, label=label)
        drawn.extend(values)
        if len(categories) * len(series) <= BAR_VALUE_LABEL_LIMIT:
            axes.bar_label(bars, labels=[f"{value:.3g}" for value in values], fontsize=7, padding=1)
    return drawn


def _gpu_vs_gpu(key, items: list[GpuCase], sink: FigureSink) -> bool:
    """Median ms and % of floor of each case timed on 2 or more GPUs, one bar per GPU. Returns False,
    drawing nothing, when no case ran on 2 GPUs."""
    by_name = {name: {item.gpu: item for item in members}
               for name, members in group_by(items, lambda item: item.case["name"]).items()}
    shared = {name: by_gpu for name, by_gpu in by_name.items() if len(by_gpu) >= 2}
    if not shared:
        return False
    gpus = sorted({gpu for by_gpu in shared.values() for gpu in by_gpu})
    # Any GPU's record will do for what the case is: name, variant and axes are the same on every GPU.
    cases = {name: next(iter(by_gpu.values())).case for name, by_gpu in shared.items()}
    names = sorted(shared, key=lambda name: (variant_label(cases[name]),
                                             _shape_sort_key(cases[name]["axes"])))
    figure, (time_axes, floor_axes) = plt.subplots(
        2, 1, sharex=True, figsize=(max(6.0, 0.45 * len(names) * len(gpus) + 2.5), 6.5), layout="constrained")
    for axes, (section, field), ylabel in ((time_axes, ("timing", "median_ms"), "median time (ms)"),
                                           (floor_axes, ("derived", "floor_pct"), "% of byte floor")):
        series = {gpu: {name: shared[name][gpu].case[section][field] for name in names if gpu in shared[name]}
                  for gpu in gpus}
        log_scale_if_wide(axes, _grouped_bars(axes, names, series))
        axes.set_ylabel(ylabel)
        axes.grid(True, axis="y", which="both", alpha=0.3)
    # op/mode/dtype are in the title, so a tick needs only the variant and the shape.
    tick_labels = [f"{variant_label(cases[name])}\n{shape_label(cases[name]['axes'])}" for name in names]
    floor_axes.set_xticks(range(len(names)), tick_labels, rotation=30, ha="right", fontsize=8)
    legend_outside(time_axes, title="GPU")
    figure.suptitle(f"{_title(key)}: GPU against GPU")
    sink.save(figure, _stem("gpu_vs_gpu", key),
              f"{_title(key)}: median time (top) and % of the byte floor (bottom; normalises for each GPU's "
              f"bandwidth) of every case timed on 2 or more GPUs, one bar per GPU.")
    return True
