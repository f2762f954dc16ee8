#!/usr/bin/env python3
"""FLA's gsa kernels (fused_recurrent_gsa, chunk_gsa) on a GPU: times at the peer shapes, and a NaN probe at
steep forget gates, to put beside fla-bench's gsa variants (kernels/notes/gsa.md quotes both).

usage: PYTHONPATH=.peer/fla_src python3 scripts/fla-gsa-peer.py --out PEER.json [--rep 100] [--only times|probe]
                                                           [--variants chunk,fused_recurrent] [--modes fwd,fwdbwd]

.peer/fla_src/fla is the `fla/` folder of FLA's public repository (git-ignored, never committed; carry it to the
GPU machine). Needs PyTorch, Triton and einops there.
- times: bf16, M = 64 slots, the five peer shapes (B, T, H, D); forward, and forward + backward with an incoming
  gradient of o (--modes picks; chunk_gsa's backward autotuning alone can take minutes); medians of
  triton.testing.do_bench after the autotuner's first calls.
- probe: B = 2, T = 512, H = 4, D = M = 64 in bf16, forward + backward of both variants with the
  forget gate f = logsigmoid(N(0, 1)) ("typical"), f = -40 on every third slot ("mixed", as fla-bench's decay
  family) and f = -40 everywhere ("floor"); counts the non-finite elements of o and of every gradient.
Exits 2 with one line when FLA cannot be imported; a case that raises is recorded with its error and the run
goes on.
"""

import argparse
import json
import sys

SHAPES = [(8, 1024, 8, 64), (4, 4096, 16, 64), (1, 24576, 16, 64), (2, 16384, 16, 128), (4, 4096, 16, 128)]
SLOTS = 64


def inputs(torch, B, T, H, D, M, dtype, gates, seed=0):
    gen = torch.Generator(device="cuda").manual_seed(seed)

    def normal(*shape):
        return torch.randn(*shape, generator=gen, device="cuda", dtype=torch.float32)

    f = torch.nn.functional.logsigmoid(normal(B, T, H, M))
    if gates == "mixed":
        f[..., ::3] = -40.0
    elif gates == "floor":
        f = torch.full_like(f, -40.0)
    tensors = dict(q=normal(B, T, H, D), k=normal(B, T, H, D), v=normal(B, T, H, D), s=1 - f.exp(), g=f)
    return {name: t.to(dtype).requires_grad_(True) for name, t in tensors.items()}


def call(gsa, variant, x):
    run = gsa.chunk_gsa if variant == "chunk" else gsa.fused_recurrent_gsa
    return run(x["q"], x["k"], x["v"], x["s"], x["g"], scale=x["q"].shape[-1] ** -0.5)[0]


def times(torch, triton, gsa, rep, variants, modes):
    rows = []
    for B, T, H, D in SHAPES:
        for variant in variants:
            for mode in modes:
                row = dict(variant=variant, mode=mode, B=B, T=T, H=H, D=D, M=SLOTS)
                try:
                    x = inputs(torch, B, T, H, D, SLOTS, torch.bfloat16, "typical")
                    if mode == "fwd":
                        def step():
                            with torch.no_grad():
                                call(gsa, variant, x)
                    else:
                        do = torch.randn_like(call(gsa, variant, x))

                        def step():
                            for t in x.values():
                                t.grad = None
                            call(gsa, variant, x).backward(do)
                    for _ in range(3):
                        step()
                    row["ms"] = triton.testing.do_bench(step, warmup=25, rep=rep, return_mode="median")
                except Exception as error:  # record it and go on
                    row["error"] = repr(error)[:300]
                rows.append(row)
                print(json.dumps(row), flush=True)
                torch.cuda.empty_cache()
    return rows


def probe(torch, gsa, variants):
    rows = []
    for dtype in (torch.bfloat16,):  # fp32: no row within a 9-minute H100 run (not looked into)
        for variant in variants:
            for gates in ("typical", "mixed", "floor"):
                row = dict(variant=variant, dtype=str(dtype).replace("torch.", ""), gates=gates)
                try:
                    x = inputs(torch, 2, 512, 4, 64, 64, dtype, gates, seed=1)
                    o = call(gsa, variant, x)
                    o.backward(torch.randn_like(o))
                    found = {"o": o}
                    found.update({"d" + name: t.grad for name, t in x.items()})
                    row["nonfinite"] = {name: int((~torch.isfinite(t.float())).sum()) for name, t in found.items()}
                except Exception as error:
                    row["error"] = repr(error)[:300]
                rows.append(row)
                print(json.dumps(row), flush=True)
    return rows


def table(rows):
    """The times as markdown lines; a case that raised shows its error in place of a time."""
    lines = [f"| variant | mode | B,T,H,D (M = {SLOTS}) | ms |", "|---|---|---|---|"]
    for r in rows:
        time = f"{r['ms']:.3f}" if "ms" in r else r["error"]
        lines.append(f"| {r['variant']} | {r['mode']} | {r['B']},{r['T']},{r['H']},{r['D']} | {time} |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--rep", type=int, default=100)
    parser.add_argument("--only", choices=("times", "probe"))
    parser.add_argument("--variants", default="chunk,fused_recurrent",
                        help="FLA's gsa variants, comma-separated: chunk, fused_recurrent")
    parser.add_argument("--modes", default="fwd,fwdbwd", help="what to time, comma-separated: fwd, fwdbwd")
    args = parser.parse_args()
    variants, modes = args.variants.split(","), args.modes.split(",")
    if not set(variants) <= {"chunk", "fused_recurrent"}:
        parser.error(f"--variants takes chunk and fused_recurrent, not {args.variants}")
    if not set(modes) <= {"fwd", "fwdbwd"}:
        parser.error(f"--modes takes fwd and fwdbwd, not {args.modes}")
    try:
        import torch
        import triton
        import fla.ops.gsa as gsa
    except Exception as error:
        print(f"fla-gsa-peer: cannot import FLA's gsa ({error!r}); see the usage line", file=sys.stderr)
        return 2
    props = torch.cuda.get_device_properties(0)
    result = dict(device=props.name, torch=torch.__version__, triton=triton.__version__, slots=SLOTS)
    result["probe"] = [] if args.only == "times" else probe(torch, gsa, variants)
    result["rows"] = [] if args.only == "probe" else times(torch, triton, gsa, args.rep, variants, modes)
    with open(args.out, "w") as out:
        json.dump(result, out, indent=1)
    print("\n".join(table(result["rows"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
