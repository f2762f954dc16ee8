#!/usr/bin/env python3
"""The named-barrier protocol of the one-kernel chunk forwards on Hopper (kernels/common/chunk/fused_roles.cuh:
simple_gla's with two state buffers, kernels/simple_gla/chunk_fused_forward.cu; gla's and rwkv6's with one,
kernels/common/chunk/per_key_fused_forward.cu), simulated: the three warpgroups (loads, state, outputs) as one
unit each, a barrier as a counter of arrivals that completes a generation at its count (stage barriers three
roles, state barriers two), each role's arrive / sync sequence as the kernels issue them for N chunks. For
N = 1..11, every fixed order of the roles and random schedules: no deadlock, no role arriving twice in one
generation, no barrier left half-way at the end. A model of the kernels' order kept beside them by hand:
change both together. Plain python3."""
import itertools
import random
import sys
import unittest

STAGES = 2


def programs(chunks, buffers, extra_state_arrival=False):
    """Each role's barrier operations for `chunks` chunks with `buffers` state buffers."""
    loads, state, outputs = [], [], []
    for n in range(chunks):
        s = n % STAGES
        loads.append(('arrive', f'full{s}'))
        if n + 1 < chunks and n + 1 >= STAGES:
            loads.append(('sync', f'empty{(n + 1) % STAGES}'))
    for n in range(chunks):
        s, b = n % STAGES, n % buffers
        if n >= buffers:
            state.append(('sync', f'state_empty{b}'))
        state.append(('arrive', f'state_full{b}'))
        state.append(('sync', f'full{s}'))
        if n + STAGES < chunks:
            state.append(('arrive', f'empty{s}'))
    for n in range(chunks):
        s, b = n % STAGES, n % buffers
        outputs.append(('sync', f'full{s}'))
        outputs.append(('sync', f'state_full{b}'))
        if n + buffers < chunks or extra_state_arrival:
            outputs.append(('arrive', f'state_empty{b}'))
        if n + STAGES < chunks:
            outputs.append(('arrive', f'empty{s}'))
    return {'loads': loads, 'state': state, 'outputs': outputs}


def counts(buffers):
    # the stages' barriers count all three warpgroups
    c = {f'{kind}{s}': 3 for kind in ('full', 'empty') for s in range(STAGES)}
    c.update({f'{kind}{b}': 2 for kind in ('state_full', 'state_empty') for b in range(buffers)})
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


def check(chunks, buffers, schedules, **mutation):
    progs, count = programs(chunks, buffers, **mutation), counts(buffers)
    for order in itertools.permutations(progs):
        simulate(progs, count, lambda runnable, order=order: next(r for r in order if r in runnable))
    for seed in range(schedules):
        rng = random.Random(seed)
        simulate(progs, count, rng.choice)


class FusedBarriers(unittest.TestCase):
    def test_two_state_buffers(self):  # simple_gla's
        for chunks in range(1, 12):
            check(chunks, 2, 300)

    def test_one_state_buffer(self):  # gla's and rwkv6's
        for chunks in range(1, 12):
            check(chunks, 1, 300)

    def test_the_simulation_sees_a_barrier_left_half_way(self):
        with self.assertRaises(AssertionError):
            check(3, 1, 10, extra_state_arrival=True)


if __name__ == '__main__':
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
