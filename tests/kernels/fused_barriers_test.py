#!/usr/bin/env python3
"""The named-barrier protocol of the one-kernel chunk forwards on Hopper
(kernels/common/chunk/fused_roles.cuh; simple_gla's, kernels/simple_gla/chunk_fused_forward.cu, and gla's
and rwkv6's, kernels/common/chunk/prepared_fused_forward.cu: one state buffer each), simulated: the three
warpgroups (loads, state, outputs) as one unit each, a barrier as a counter of arrivals that completes a
generation at its count (stage barriers three roles, state barriers two), each role's arrive / sync
sequence as the kernels issue them for N chunks, the loads running stages - 1 chunks ahead
(run_loads_ring). For N = 1..11, at the kernels' kFusedStages (read from fused_plan.h) and at 2 to 4
stages, every fixed order of the roles and random schedules: no deadlock, no role arriving twice in one
generation, no barrier left half-way at the end. A model of the kernels' order kept beside them by hand:
change both together. Plain python3."""
import itertools
import pathlib
import random
import re
import sys
import unittest

# the kernels' ring depth, read from the header that sets it, so that the model follows a change of it
PLAN = pathlib.Path(__file__).resolve().parents[2] / 'kernels/common/chunk/fused_plan.h'
KERNEL_STAGES = int(re.search(r'constexpr int kFusedStages = (\d+);', PLAN.read_text()).group(1))


def programs(chunks, stages, extra_state_arrival=False):
    """Each role's barrier operations for `chunks` chunks through `stages` stages."""
    loads, state, outputs = [], [], []
    for n in range(chunks):
        loads.append(('arrive', f'full{n % stages}'))
        ahead = n + stages - 1  # the chunk whose copies go out next
        if stages <= ahead < chunks:
            loads.append(('sync', f'empty{ahead % stages}'))
    for n in range(chunks):
        s = n % stages
        if n >= 1:
            state.append(('sync', 'state_empty'))
        state.append(('arrive', 'state_full'))
        state.append(('sync', f'full{s}'))
        if n + stages < chunks:
            state.append(('arrive', f'empty{s}'))
    for n in range(chunks):
        s = n % stages
        outputs.append(('sync', f'full{s}'))
        outputs.append(('sync', 'state_full'))
        if n + 1 < chunks or extra_state_arrival:
            outputs.append(('arrive', 'state_empty'))
        if n + stages < chunks:
            outputs.append(('arrive', f'empty{s}'))
    return {'loads': loads, 'state': state, 'outputs': outputs}


def counts(stages):
    # the stages' barriers count all three warpgroups
    c = {f'{kind}{s}': 3 for kind in ('full', 'empty') for s in range(stages)}
    c.update({'state_full': 2, 'state_empty': 2})
    return c


def simulate(progs, count, pick):
    """Runs the roles, `pick(runnable)` choosing which moves next; raises AssertionError on a fault."""
    pc = {r: 0 for r in progs}
    arrived = {b: set() for b in count}
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
        op, b = progs[r][pc[r]]
        pc[r] += 1
        assert r not in arrived[b], f'{r} arrives twice at {b}, generation {generation[b]}'
        arrived[b].add(r)
        g = generation[b]
        if len(arrived[b]) == count[b]:
            generation[b] += 1
            arrived[b] = set()
        elif op == 'sync':
            waiting[r] = (b, g)
    assert all(pc[r] >= len(progs[r]) for r in progs) and not waiting, f'deadlock at {pc}, waiting {waiting}'
    assert not any(arrived.values()), f'left half-way: {arrived}'


def check(chunks, stages, schedules, **mutation):
    progs, count = programs(chunks, stages, **mutation), counts(stages)
    for order in itertools.permutations(progs):
        simulate(progs, count, lambda runnable, order=order: next(r for r in order if r in runnable))
    for seed in range(schedules):
        rng = random.Random(seed)
        simulate(progs, count, rng.choice)


class FusedBarriers(unittest.TestCase):
    def test_the_kernels_stages(self):  # kFusedStages, 3 today
        for chunks in range(1, 12):
            check(chunks, KERNEL_STAGES, 300)

    def test_every_ring_depth_up_to_four(self):  # the ring's order holds for any depth, not only today's
        for stages in range(2, 5):
            for chunks in range(1, 12):
                check(chunks, stages, 100)

    def test_the_simulation_sees_a_barrier_left_half_way(self):
        with self.assertRaises(AssertionError):
            check(3, 3, 10, extra_state_arrival=True)


if __name__ == '__main__':
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
