"""The playouts' choice among a seat's options in Expert, one loop per area card: fast.Sim.best_gain's inner loop.

Each option's value is gain()'s very float, added in gain's order: the token's part `tg`, the highest building's
`high` by district, the neighborhood card's `kb` (2 or 0: x + 0 is x), then the area card's share as
Sim._area_gain works it out. The first option above `floor` with the highest value wins, as a strict `>` keeps it.
One loop per card rather than a list of shares built and zipped: most calls weigh one to three options, so the
call and the list cost more than the loop (measured in instructions, docs/PLAYERS.md "The playouts' speed").
"""
from __future__ import annotations

EMPTY = -1      # fast.EMPTY: a neighborhood in play with no building and no bid


def districts(sim, s: int, opts: list, floor: float, tg: tuple, high: list, kb: tuple, area: str) -> tuple:
    tok, dist, pot = sim.tok, sim.g.dist, sim.potential
    have = [d[s] for d in sim.dcount]
    best = None
    for i in opts:
        h = have[dist[i]]
        x = tg[tok[i]] + high[dist[i]] + kb[i] + (4.0 if h == 2 else pot * 4.0 * h / 2)
        if x > floor:
            best, floor = i, x
    return best, floor


def bridges(sim, s: int, opts: list, floor: float, tg: tuple, high: list, kb: tuple, area: str) -> tuple:
    tok, dist, owner, partners, p2 = sim.tok, sim.g.dist, sim.owner, sim.g.partners, sim.potential * 2.0
    best = None
    for i in opts:
        y = 0                               # sum()'s start: the same additions, in the same order
        for j in partners[i]:
            o = owner[j]
            y += 4.0 if o == s else p2 if o == EMPTY else 0.0
        x = tg[tok[i]] + high[dist[i]] + kb[i] + y
        if x > floor:
            best, floor = i, x
    return best, floor


def lakes(sim, s: int, opts: list, floor: float, tg: tuple, high: list, kb: tuple, area: str) -> tuple:
    tok, dist, lc, lakes_of, p5 = sim.tok, sim.g.dist, sim.lcount, sim.g.lakes_of, sim.potential * 5.0
    best = None
    for i in opts:
        y = 0.0
        for lake in lakes_of[i]:
            h = lc[lake][s] % 3
            z = 5.0 if h == 2 else p5 * (h + 1) / 3
            if z > y:
                y = z
        x = tg[tok[i]] + high[dist[i]] + kb[i] + y
        if x > floor:
            best, floor = i, x
    return best, floor


def chains(sim, s: int, opts: list, floor: float, tg: tuple, high: list, kb: tuple, area: str) -> tuple:
    tok, dist, owner, adj, pot = sim.tok, sim.g.dist, sim.owner, sim.g.adj, sim.potential
    p4 = pot * 4.0
    best = None
    for i in opts:
        near, one = 0, -1                   # this seat's neighbors of i: how many, and one of them
        for j in adj[i]:
            if owner[j] == s:
                near, one = near + 1, j
        if near >= 2:
            y = 4.0
        else:
            y = p4 * near / 2 + pot
            if near:                        # one neighbor of its own, itself next to another: a chain of three
                for m in adj[one]:
                    if m != i and owner[m] == s:
                        y = 4.0
                        break
        x = tg[tok[i]] + high[dist[i]] + kb[i] + y
        if x > floor:
            best, floor = i, x
    return best, floor


def statues(sim, s: int, opts: list, floor: float, tg: tuple, high: list, kb: tuple, area: str) -> tuple:
    tok, dist, owner, statues_of, p7 = sim.tok, sim.g.dist, sim.owner, sim.g.statues_of, sim.potential * 7.0
    best = None
    for i in opts:
        y = 0.0
        for a, b in statues_of[i]:
            oa, ob = owner[a], owner[b]
            h = (oa == s) + (ob == s)
            if h == 2:
                if y < 7.0:
                    y = 7.0
            elif h + (oa == EMPTY) + (ob == EMPTY) == 2:
                z = p7 * (h + 1) / 3
                if z > y:
                    y = z
        x = tg[tok[i]] + high[dist[i]] + kb[i] + y
        if x > floor:
            best, floor = i, x
    return best, floor


def other(sim, s: int, opts: list, floor: float, tg: tuple, high: list, kb: tuple, area) -> tuple:
    """No area card (Sim._area_gain gives a card without a loop here 0.0, which adds nothing)."""
    tok, dist = sim.tok, sim.g.dist
    best = None
    for i in opts:
        x = tg[tok[i]] + high[dist[i]] + kb[i]
        if x > floor:
            best, floor = i, x
    return best, floor


BY_CARD = {"districts": districts, "bridges": bridges, "lakes": lakes, "chains": chains, "statues": statues}
