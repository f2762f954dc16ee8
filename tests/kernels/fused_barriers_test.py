#!/usr/bin/env python3
"""The named-barrier protocol of the one-kernel chunk forwards on Hopper
(kernels/common/chunk/fused_roles.cuh; simple_gla's, kernels/simple_gla/chunk_fused_forward.cu, with one or
two outputs warpgroups taking the chunks in turn and a state buffer each, and gla's and rwkv6's,
kernels/common/chunk/prepared_fused_forward.cu, with one), simulated: each warpgroup (loads, state, each
outputs) as one unit, a barrier as a counter of arrivals that completes a generation at its count (stage
barriers three roles: the loads, the state and the chunk's outputs warpgroup; state barriers two), each
role's arrive / sync sequence as the kernels issue them for N chunks, the loads running stages - 1 chunks
ahead with one outputs warpgroup and stages - 2 with two (run_loads_ring; simple_gla's two take four
stages). Each arrival carries the chunk it is for. For N = 1..11, at the kernels'
kFusedStages (read from fused_plan.h; one more with two outputs warpgroups) and at 2 to 5 stages, every fixed
order of the roles and random schedules: no deadlock, no role arriving twice in one generation, no
generation completed by arrivals for different chunks, no barrier left half-way at the end. A model of the
kernels' order kept beside them by hand: change both together. Plain python3."""
import itertools
import pathlib
import random
import re
import sys
import unittest

# the kernels' ring depth, read from the header that sets it, so that the model follows a change of it
PLAN = pathlib.Path(__file__).resolve().parents[2] / 'kernels/common/chunk/fused_plan.h'
KERNEL_STAGES = int(re.search(r'constexpr int kFusedStages = (\d+);', PLAN.read_text()).group(1))


def programs(chunks, stages, groups=1, extra_state_arrival=False, state_waits_on_other_buffer=False):
    """Each role's barrier operations (op, barrier, chunk) for `chunks` chunks through `stages` stages and
    `groups` outputs warpgroups (chunk n's is n % groups, reading state buffer n % groups)."""
    buffers = groups
    loads, state = [], []
    outputs = {g: [] for g in range(groups)}
    for n in range(chunks):
        loads.append(('arrive', f'full{n % stages}', n))
        ahead = n + stages - groups  # the chunk whose copies go out next
        if stages <= ahead < chunks:
            loads.append(('sync', f'empty{ahead % stages}', ahead - stages))
    for n in range(chunks):
        s, b = n % stages, n % buffers
        if n >= buffers:
            waited = (b + 1) % buffers if state_waits_on_other_buffer else b
            state.append(('sync', f'state_empty{waited}', n - buffers))
        state.append(('arrive', f'state_full{b}', n))
        state.append(('sync', f'full{s}', n))
        if n + stages < chunks:
            state.append(('arrive', f'empty{s}', n))
    for n in range(chunks):
        s, g, b = n % stages, n % groups, n % buffers
        outputs[g].append(('sync', f'full{s}', n))
        outputs[g].append(('sync', f'state_full{b}', n))
        if n + buffers < chunks or extra_state_arrival:
            outputs[g].append(('arrive', f'state_empty{b}', n))
        if n + stages < chunks:
            outputs[g].append(('arrive', f'empty{s}', n))
    progs = {'loads': loads, 'state': state}
    progs.update({f'outputs{g}': outputs[g] for g in range(groups)})
    return progs


def counts(stages, groups=1):
    # the stages' barriers count three warpgroups: the loads, the state and the chunk's outputs
    c = {f'{kind}{s}': 3 for kind in ('full', 'empty') for s in range(stages)}
    for b in range(groups):
        c.update({f'state_full{b}': 2, f'state_empty{b}': 2})
    return c


def simulate(progs, count, pick):
    """Runs the roles, `pick(runnable)` choosing which moves next; raises AssertionError on a fault."""
    pc = {r: 0 for r in progs}
    arrived = {b: set() for b in count}
    chunk_of = {}  # the chunk the barrier's open generation is for
    generation = {b: 0 for b in count}
    waiting = {}
    while True:
        for r in list(waiting):
            b, g = waiting[r]
            if generation[b] > g:
                del waiting[r]
        runnable = [r for r in progs if r not in waiting and pc[r] < len(progs[r])]
        if not runnable:
            break
        r = pick(runnable)
        op, b, chunk = progs[r][pc[r]]
        pc[r] += 1
        assert r not in arrived[b], f'{r} arrives twice at {b}, generation {generation[b]}'
        open_for = chunk_of.setdefault(b, chunk)
        assert open_for == chunk, f'{r} arrives at {b} for chunk {chunk}, open for {open_for}'
        arrived[b].add(r)
        g = generation[b]
        if len(arrived[b]) == count[b]:
            generation[b] += 1
            arrived[b] = set()
            del chunk_of[b]
        elif op == 'sync':
            waiting[r] = (b, g)
    assert all(pc[r] >= len(progs[r]) for r in progs) and not waiting, f'deadlock at {pc}, waiting {waiting}'
    assert not any(arrived.values()), f'left half-way: {arrived}'


def check(chunks, stages, schedules, groups=1, **mutation):
    progs, count = programs(chunks, stages, groups, **mutation), counts(stages, groups)
    for order in itertools.permutations(progs):
        simulate(progs, count, lambda runnable, order=order: next(r for r in order if r in runnable))
    for seed in range(schedules):
        rng = random.Random(seed)
        simulate(progs, count, rng.choice)


class FusedBarriers(unittest.TestCase):
    def test_the_kernels_stages(self):  # kFusedStages (3 today) with one outputs warpgroup, one more with two
        for groups in (1, 2):
            for chunks in range(1, 12):
                check(chunks, KERNEL_STAGES + groups - 1, 300, groups)

    def test_every_ring_depth_up_to_five(self):  # the ring's order holds for any depth, not only today's
        for groups in (1, 2):
            for stages in range(groups + 1, 6):
                for chunks in range(1, 12):
                    check(chunks, stages, 100, groups)

    def test_the_simulation_sees_a_barrier_left_half_way(self):
        with self.assertRaises(AssertionError):
            check(3, 3, 10, extra_state_arrival=True)

    def test_the_simulation_sees_a_generation_of_two_chunks(self):
        with self.assertRaises(AssertionError):
            check(5, 3, 10, groups=2, state_waits_on_other_buffer=True)


if __name__ == '__main__':
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
