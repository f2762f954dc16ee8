#!/usr/bin/env python3
"""The barrier protocol of simple_gla's fused chunk forward (kernels/simple_gla/chunk_fused_forward.cu),
simulated: its three warpgroups (loads, state, outputs) as one unit each, its named barriers as counters of
arrivals that complete a generation at their count (stage barriers 3 roles, state barriers 2), each role's
sequence of arrive / sync as the kernel issues them for N chunks. Checks, for N = 1..11 and every order and
3,000 random schedules: no deadlock, no role arriving twice in one generation, no barrier left half-way at the
end. A model of the kernel's order, kept beside it by hand: change both together.
usage: barrier-sim.py"""
import itertools
def programs(N, stages=2):
    P, S, O = [], [], []
    # loads
    P.append(('load', 0))
    for n in range(N):
        s = n % stages
        P.append(('arrive', f'full{s}'))
        if n + 1 < N:
            if n + 1 >= stages: P.append(('sync', f'empty{(n+1)%stages}'))
            P.append(('load', n+1))
    # state
    for n in range(N):
        s, b = n % stages, n % 2
        if n >= 2: S.append(('sync', f'sempty{b}'))
        S.append(('arrive', f'sfull{b}'))
        S.append(('sync', f'full{s}'))
        if n + stages < N: S.append(('arrive', f'empty{s}'))
    # outputs
    for n in range(N):
        s, b = n % stages, n % 2
        O.append(('sync', f'full{s}'))
        O.append(('sync', f'sfull{b}'))
        if n + 2 < N: O.append(('arrive', f'sempty{b}'))
        if n + stages < N: O.append(('arrive', f'empty{s}'))
    return {'P': P, 'S': S, 'O': O}
count = {'full0':3,'full1':3,'empty0':3,'empty1':3,'sfull0':2,'sfull1':2,'sempty0':2,'sempty1':2}
def run(N, order):
    progs = programs(N); pc = {r:0 for r in progs}
    arrived = {b: set() for b in count}   # roles arrived in current generation
    gen = {b: 0 for b in count}
    waiting = {}  # role -> (barrier, generation)
    steps = 0
    while True:
        progressed = False
        for r in order:
            if r in waiting:
                b, g = waiting[r]
                if gen[b] > g: del waiting[r]; progressed = True
                continue
            if pc[r] >= len(progs[r]): continue
            op, b = progs[r][pc[r]]
            pc[r] += 1; progressed = True
            if op == 'load': continue
            assert r not in arrived[b], f'N={N}: {r} arrives twice at {b} gen {gen[b]}'
            arrived[b].add(r)
            g = gen[b]
            if len(arrived[b]) == count[b]:
                gen[b] += 1; arrived[b] = set()
            elif op == 'sync':
                waiting[r] = (b, g)
        if not progressed: break
    done = all(pc[r] >= len(progs[r]) for r in progs) and not waiting
    left = {b: a for b, a in arrived.items() if a}
    assert done, f'N={N} order={order}: deadlock at {pc}, waiting {waiting}'
    assert not left, f'N={N}: barriers left half-way {left}'
for N in range(1, 9):
    for order in itertools.permutations('PSO'):
        run(N, order)
print('ok')
import random
def run_random(N, seed):
    rng = random.Random(seed)
    progs = programs(N); pc = {r:0 for r in progs}
    arrived = {b: set() for b in count}; gen = {b: 0 for b in count}; waiting = {}
    while True:
        for r in list(waiting):
            b, g = waiting[r]
            if gen[b] > g: del waiting[r]
        runnable = [r for r in progs if r not in waiting and pc[r] < len(progs[r])]
        if not runnable: break
        r = rng.choice(runnable)
        op, b = progs[r][pc[r]]; pc[r] += 1
        if op == 'load': continue
        assert r not in arrived[b], f'N={N}: {r} arrives twice at {b}'
        arrived[b].add(r); g = gen[b]
        if len(arrived[b]) == count[b]: gen[b] += 1; arrived[b] = set()
        elif op == 'sync': waiting[r] = (b, g)
    assert all(pc[r] >= len(progs[r]) for r in progs) and not waiting, f'N={N} seed={seed}: deadlock {pc} {waiting}'
    assert not any(arrived.values()), f'N={N}: left half-way {arrived}'
for N in range(1, 12):
    for seed in range(3000): run_random(N, seed)
print('random ok')
