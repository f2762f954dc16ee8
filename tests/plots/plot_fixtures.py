"""Small, schema-valid fla-bench result and history files for the plots tests.

The numbers are made up but shaped like real runs (results/baselines/h100): medians grow with T, checks carry
per-tensor rms ratios, a check run has no timing. Each builder returns a plain dict ready for json.dump.
"""

import json
import os

GPU_A = "NVIDIA H100 80GB HBM3"
GPU_B = "NVIDIA H200"
OP, MODE, DTYPE = "gla", "fwd", "bf16"
VARIANTS = ("naive", "fused_recurrent")
LENGTHS = (1024, 4096, 16384)
SHAPE = {"B": 2, "H": 4, "K": 64, "V": 64, "chunk_size": 0}
BANDWIDTH_GBS = {GPU_A: 2950.0, GPU_B: 4100.0}
GIT_SHA = "0123456789abcdef0123456789abcdef01234567"
# The one failing check, as check_run() names it: fp16 fused_recurrent, whose dk is 3x past its threshold.
FAILED_CASE = "accuracy/gla/fused_recurrent/fwdbwd/fp16/B2-T65-H2-K64-V64/reference"
FAILED_REASON = "check failed: dk rms_ratio 0.003 > threshold 0.001"
FAILED_REPRODUCE = "fla-bench check --filter 'accuracy/gla/fused_recurrent/fwdbwd/fp16' --seed 0"
# A command-line argument that must come out of the report escaped.
HOSTILE_ARGUMENT = "<script>alert(1)</script>"
HISTORY_CHANGE_LABEL = "+9.8%"


def context(gpu: str, started_utc: str, command_line: list[str], time: bool = True) -> dict:
    """A result file's context, every key the schema requires."""
    device = {"backend": "cuda", "index": 0, "name": gpu, "uuid": "GPU-00000000-0000-0000-0000-000000000000",
              "compute_capability": 90, "sm_count": 132, "sm_clock_mhz": 1980.0, "memory_clock_mhz": 2619.0,
              "memory_bus_bits": 5120, "memory_bytes": 85017493504.0, "l2_bytes": 52428800.0,
              "shared_memory_per_block": 232448.0, "bandwidth_theoretical_gbs": 3352.32,
              "bandwidth_measured_gbs": BANDWIDTH_GBS[gpu], "cuda_runtime": "13.0", "cuda_driver": "13.0"}
    settings = {"min_time_s": 0.5, "min_samples": 10, "warmup_time_s": 0.1, "l2_flush": True, "check": True,
                "time": time, "seed": 0, "floor_bandwidth_gbs": BANDWIDTH_GBS[gpu],
                "floor_bandwidth_source": "measured"}
    return {"schema": "fla-bench-result", "schema_version": "1.1.0", "started_utc": started_utc,
            "host": "testhost", "fla_bench_version": "0.1.0", "git_sha": GIT_SHA, "git_dirty": False,
            "command_line": command_line, "device": device, "settings": settings}


def tensor_check(tensor: str, rms_ratio: float, threshold: float = 0.005) -> dict:
    return {"tensor": tensor, "rms_ratio": rms_ratio, "max_abs": rms_ratio * 10, "threshold": threshold,
            "nonfinite": 0, "passed": rms_ratio <= threshold, "detail": ""}


def case(variant: str, mode: str, dtype: str, axes: dict, tensors: list[dict] | None = None,
         median_ms: float | None = None, bandwidth_gbs: float = 3000.0, family: str | None = None) -> dict:
    """One case: checked when tensors are given, timed when median_ms is; failed when a tensor failed. A
    check battery case (with a family) is named as the battery names it: family/.../shape/probe."""
    shape = "-".join(f"{axis}{axes[axis]}" for axis in "BTHKV")
    name = f"{OP}/{variant}/{mode}/{dtype}/{shape}"
    record = {"name": f"{family}/{name}/reference" if family else name, "op": OP, "variant": variant,
              "mode": mode, "dtype": dtype, "axes": dict(axes), "scale": 0.125, "status": "ok", "reason": ""}
    if family:
        record["family"] = family
    if tensors:
        passed = all(tensor["passed"] for tensor in tensors)
        record["check"] = {"passed": passed, "shape": shape, "tensors": tensors}
        if not passed:
            record.update(status="failed", reason=FAILED_REASON, reproduce=FAILED_REPRODUCE)
    if median_ms is not None:
        record["timing"] = _timing(median_ms)
        record["derived"] = _derived(axes, median_ms, bandwidth_gbs)
    return record


def _timing(median_ms: float) -> dict:
    samples = [median_ms * factor for factor in (0.97, 0.99, 1.0, 1.01, 1.05)]
    return {"samples": len(samples), "median_ms": median_ms, "mean_ms": sum(samples) / len(samples),
            "stddev_ms": median_ms * 0.03, "min_ms": samples[0], "max_ms": samples[-1], "q1_ms": samples[1],
            "q3_ms": samples[3], "samples_ms": samples}


def _derived(axes: dict, median_ms: float, bandwidth_gbs: float) -> dict:
    tokens = axes["B"] * axes["T"]
    floor_bytes = tokens * axes["H"] * (3 * axes["K"] + 2 * axes["V"]) * 2.0
    floor_ms = floor_bytes / (bandwidth_gbs * 1e9) * 1e3
    flops = 5.0 * tokens * axes["H"] * axes["K"] * axes["V"]
    return {"tokens_per_s": tokens / (median_ms / 1e3), "flops": flops,
            "tflops_per_s": flops / median_ms / 1e9, "floor_bytes": floor_bytes, "floor_ms": floor_ms,
            "achieved_gbs": floor_bytes / median_ms / 1e6, "floor_pct": floor_ms / median_ms * 100}


def result(context_: dict, cases: list[dict]) -> dict:
    """A complete result file around the cases, with the summary counted from them."""
    counts = {status: sum(record["status"] == status for record in cases)
              for status in ("ok", "failed", "skipped")}
    return {"schema": "fla-bench-result", "schema_version": "1.1.0", "complete": True, "context": context_,
            "cases": cases, "summary": {"cases": len(cases), **counts, "wall_s": 12.5}}


def timed_run(gpu: str, slowdown: float) -> dict:
    """Both variants at every T on one GPU; `slowdown` scales every median, so the two GPUs differ."""
    cases = []
    for variant, per_token_ms in zip(VARIANTS, (4e-4, 5e-5)):
        for length in LENGTHS:
            tensors = [tensor_check("o", 1e-3), tensor_check("ht", 2e-4)]
            cases.append(case(variant, MODE, DTYPE, {**SHAPE, "T": length}, tensors,
                              median_ms=per_token_ms * length * slowdown, bandwidth_gbs=BANDWIDTH_GBS[gpu]))
    command = ["fla-bench", "--filter", OP, "--note", HOSTILE_ARGUMENT]
    return result(context(gpu, "2026-11-20T02:00:00Z", command), cases)


def check_run(gpu: str) -> dict:
    """A `fla-bench check` run: no timing, every dtype, one failed check and one skipped case."""
    cases = []
    axes = {**SHAPE, "H": 2, "T": 65}
    for dtype in ("fp32", "fp16", "bf16"):
        for variant in VARIANTS:
            bad = (variant, dtype) == ("fused_recurrent", "fp16")
            tensors = [tensor_check("o", 2e-4, 1e-3), tensor_check("dk", 3e-3 if bad else 1e-4, 1e-3),
                       tensor_check("k", 0.0, 0.0)]
            cases.append(case(variant, "fwdbwd", dtype, axes, tensors, family="accuracy"))
    skipped = case("naive", "fwdbwd", "fp32", {**axes, "K": 256, "V": 256}, family="shapes")
    skipped.update(status="skipped", reason="naive keeps the 256x256 fp32 state in shared memory")
    cases.append(skipped)
    return result(context(gpu, "2026-11-21T03:00:00Z", ["fla-bench", "check"], time=False), cases)


def history(gpu: str, case_names: list[str]) -> dict:
    """Five nightly runs: the first case steps 9.8% slower at run 3; the second, missing from run 2, steps
    7.5% faster at run 3 (a flag without "kind", as the brief's format has it); the third spikes at run 1."""
    runs = [{"file": f"history/h100/2026112{day}T020000Z-0123abcd.json",
             "started_utc": f"2026-11-2{day}T02:00:00Z", "git_sha": GIT_SHA, "gpu": gpu} for day in range(5)]
    slower, faster, spiking = case_names[:3]
    cases = [
        {"name": slower, "medians_ms": [5.19, 5.20, 5.21, 5.71, 5.70],
         "flags": [{"run": 3, "direction": "slower", "change_pct": 9.8, "z": 12.3, "kind": "step"}]},
        {"name": faster, "medians_ms": [2.0, 2.01, None, 1.86, 1.85],
         "flags": [{"run": 3, "direction": "faster", "change_pct": -7.5, "z": 8.1}]},
        {"name": spiking, "medians_ms": [1.0, 1.12, 1.0, 1.01, 1.0],
         "flags": [{"run": 1, "direction": "slower", "change_pct": 12.0, "z": 9.0, "kind": "spike"}]}]
    return {"schema": "fla-bench-history", "schema_version": "1.0.0",
            "settings": {"lookback": 7, "min_points": 3, "threshold_pct": 5.0, "min_z": 4.0}, "runs": runs,
            "cases": cases}


def write_json(path: str, document: dict) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as file:
        json.dump(document, file, indent=1)
    return path


def write_partial(path: str, document: dict, cut_last_line: bool = True) -> str:
    """The JSON Lines form a running fla-bench appends to; by default the last line is cut short, as a crash
    leaves it."""
    header = {key: document[key] for key in ("schema", "schema_version", "context")}
    lines = [json.dumps(header)] + [json.dumps({"case": record}) for record in document["cases"]]
    text = "\n".join(lines)
    if cut_last_line:
        text = text[:len(text) - len(lines[-1]) // 2]
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    return path
