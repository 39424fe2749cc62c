"""A game played out fast to its end: the rules of game/rules.py on flat lists, for the Monte Carlo players.

`Sim.from_state` copies a State (every seat's cards given by the caller: a guessed world, never read from the
state's hidden seats); `Sim.play_out` plays every seat with a cheap greedy-like policy until someone's last
building stands; `Sim.final` scores the end exactly as game/scoring.py does (tests/test_players.py checks both
against game/ over many random games). Pure: stdlib only, no clock; the only randomness is the rng handed in.
"""
from __future__ import annotations

import random
from bisect import bisect_right, insort

from companion.game.board import Board, load_board
from companion.game.scoring import family_touch
from companion.game.state import NEIGHBORHOOD_CARDS, State

from . import policy
from .groups import Groups

_TOK = {"trendy": 0, "subway": 1, "archaeological": 2}
EMPTY, IN_CALL, OUT = -1, -2, -9


def size_class(v: int) -> int:
    return 0 if v <= 5 else 1 if v <= 9 else 2


_CLASS = tuple(size_class(v) for v in range(14))           # size_class by value, read in the playouts' loops
_AFTER = {n: tuple(tuple((a + k) % n for k in range(1, n)) for a in range(n)) for n in (2, 3, 4)}   # seats after a


class Geo:
    """The board as indices: neighbors, districts, kinds and the objectives' shapes, once per set of districts out."""

    _cache: dict = {}

    @classmethod
    def get(cls, board: Board, removed: frozenset) -> "Geo":
        key = (id(board), removed)
        if key not in cls._cache:
            cls._cache[key] = cls(board, removed)
        return cls._cache[key]

    def __init__(self, board: Board, removed: frozenset):
        self.board = board
        self.ids = sorted(board.neighborhoods)
        idx = self.idx = {nb: i for i, nb in enumerate(self.ids)}
        hood = board.neighborhoods
        self.live = [hood[nb].district not in removed for nb in self.ids]
        self.adj = [tuple(sorted(idx[m] for m in hood[nb].neighbors if self.live[idx[m]])) for nb in self.ids]
        dnames = sorted(board.districts)
        self.dist = [dnames.index(hood[nb].district) for nb in self.ids]
        self.ndist = len(dnames)
        self.kind = [NEIGHBORHOOD_CARDS.index(hood[nb].kind) for nb in self.ids]
        self.members = [tuple(i for i in range(len(self.ids)) if self.dist[i] == d) for d in range(self.ndist)]
        self.touch = {c: frozenset(idx[n] for n in family_touch(board, c))
                      for c in ("bridges", "statues", "lakes", "borders")}
        self.partners = [tuple(idx[m] for m in hood[nb].bridges) for nb in self.ids]
        self.kind_bonus = {None: (0,) * len(self.ids)}     # by the seat's neighborhood card
        for k in range(len(NEIGHBORHOOD_CARDS)):
            self.kind_bonus[k] = tuple(2 if x == k else 0 for x in self.kind)
        self.groups = Groups(board, idx)
        self.lakes_of = [[] for _ in self.ids]      # lake numbers each neighborhood borders
        self.nlakes = len(board.lakes)
        for x, lake in enumerate(board.lakes):
            for n in lake.neighborhoods:
                self.lakes_of[idx[n]].append(x)
        self.statues_of = [[] for _ in self.ids]
        for st in board.statues:
            trio = tuple(idx[n] for n in st.neighborhoods)
            for i in trio:
                self.statues_of[i].append(tuple(x for x in trio if x != i))


class Sim:
    """A game between two decisions, on lists; `cards[i]` is seat i's (area, kind index or None) in this world."""

    __slots__ = ("g", "n", "expert", "k", "owner", "value", "hands", "counts", "tok", "coll", "sub", "arc",
                 "start", "to_act", "call", "passed", "finished", "cards", "dmax", "dcount", "lcount", "potential", "free",
                 "deny", "highs")

    @classmethod
    def from_state(cls, state: State, cards: list, board: Board | None = None) -> "Sim":
        board = board or load_board()
        s = object.__new__(cls)
        g = s.g = Geo.get(board, state.setup.removed_districts)
        s.n, s.expert, s.k = len(state.setup.seats), state.setup.mode == "expert", board.scoring
        s.owner = [EMPTY if live else OUT for live in g.live]
        s.value = [0] * len(g.ids)
        s.dmax = [[-1] * s.n for _ in range(g.ndist)]
        s.dcount = [[0] * s.n for _ in range(g.ndist)]
        s.lcount = [[0] * s.n for _ in range(g.nlakes)]
        s.free = [i for i, live in enumerate(g.live) if live]       # in play and not built on, in the board's order
        for nb, b in state.built.items():
            s._place(g.idx[nb], state.seat(b.player), b.value)
        s.call = []
        for b in state.call:
            s.owner[g.idx[b.neighborhood]] = IN_CALL
            s.call.append((state.seat(b.player), g.idx[b.neighborhood], b.value))
        s.hands = [list(h) for h in state.hands]
        s.counts = list(state.built_count)
        s.tok = [-1] * len(g.ids)
        for nb, t in state.tokens.items():
            s.tok[g.idx[nb]] = _TOK[t]
        s.coll = [list(c) for c in state.collected]
        s.sub = -1 if state.subway_card is None else state.subway_card
        s.arc = -1 if state.archaeological_card is None else state.archaeological_card
        s.start, s.finished = state.start, state.finished
        s.to_act = -1 if state.to_act is None else state.to_act
        s.passed = 0
        for p in state.passed:
            s.passed |= 1 << p
        s.cards = [(a, None if k is None else NEIGHBORHOOD_CARDS.index(k)) for a, k in cards]
        s.potential, s.deny, s.highs = 0.0, 0.0, [None] * 12
        return s

    def copy(self) -> "Sim":
        s = object.__new__(Sim)
        s.g, s.n, s.expert, s.k, s.cards, s.potential = self.g, self.n, self.expert, self.k, self.cards, self.potential
        s.deny = self.deny
        s.owner, s.value, s.tok, s.counts = self.owner[:], self.value[:], self.tok[:], self.counts[:]
        s.hands = [h[:] for h in self.hands]
        s.coll = [c[:] for c in self.coll]
        s.dmax = [d[:] for d in self.dmax]
        s.dcount = [d[:] for d in self.dcount]
        s.lcount = [x[:] for x in self.lcount]
        s.sub, s.arc, s.start, s.to_act, s.finished = self.sub, self.arc, self.start, self.to_act, self.finished
        s.call, s.passed, s.free, s.highs = self.call[:], self.passed, self.free[:], [None] * 12
        return s

    # --- the rules (game/rules.py: apply, _advance, _end_call) ---------------------------------------------------

    def bid(self, s: int, i: int, v: int) -> None:
        self.hands[s].remove(v)
        self.owner[i] = IN_CALL
        self.call.append((s, i, v))
        self._advance(s)

    def pass_(self, s: int) -> None:
        self.passed |= 1 << s
        self._advance(s)

    def room(self, i: int) -> list:
        owner = self.owner
        return [j for j in self.g.adj[i] if owner[j] == EMPTY]

    def _advance(self, actor: int) -> None:
        """Seats that cannot outbid pass; the next seat still in acts, or the call ends (rules._advance)."""
        leader, i, v = self.call[-1]
        n, owner, hands, passed = self.n, self.owner, self.hands, self.passed
        room = None                                 # worked out when a seat still in the call is met
        nxt = -1
        for s in _AFTER[n][actor]:
            if s == leader or passed >> s & 1:
                continue
            if room is None:
                room = False
                for j in self.g.adj[i]:
                    if owner[j] == EMPTY:
                        room = True
                        break
            h = hands[s]
            if not room or not h or h[-1] <= v:
                passed |= 1 << s
            elif nxt < 0:
                nxt = s
        self.passed = passed
        if nxt >= 0:
            self.to_act = nxt
        else:
            self._end_call(leader)

    def _place(self, i: int, p: int, v: int) -> None:
        self.owner[i], self.value[i] = p, v
        self.highs = [None] * 12                    # _high by seat and class, kept until a building stands
        self.free.remove(i)
        d = self.g.dist[i]
        row, c = self.dmax[d], _CLASS[v]
        if c > row[p]:
            row[p] = c
        self.dcount[d][p] += 1
        for x in self.g.lakes_of[i]:
            self.lcount[x][p] += 1

    def _end_call(self, w: int) -> None:
        _, i, v = self.call[-1]
        for s, j, x in self.call[:-1]:
            insort(self.hands[s], x)
            self.owner[j] = EMPTY
        self._place(i, w, v)
        self.counts[w] += 1
        t = self.tok[i]
        if t >= 0:
            self.tok[i] = -1
            c = self.coll[w]
            c[t] += 1
            if t == 1 and (self.sub < 0 or (self.sub != w and c[1] > self.coll[self.sub][1])):
                self.sub = w
            elif t == 2:
                self.arc = w
        self.call, self.passed, self.start, self.to_act = [], 0, w, w
        if self.counts[w] == 13:
            self.finished, self.to_act = True, -1

    # --- the end, scored as game/scoring.py scores it -------------------------------------------------------------

    def final(self) -> list:
        """Every seat's total as scoring.explain counts it for this world's cards."""
        g, k, n = self.g, self.k, self.n
        mine, bits = [set() for _ in range(n)], [0] * n
        for i, o in enumerate(self.owner):
            if o >= 0:
                mine[o].add(i)
                bits[o] |= 1 << i
        out = []
        for p in range(n):
            t, s, a = self.coll[p]
            pts = (t * k["trendy_token"] + s * k["subway_token"] + a * k["archaeological_token"]
                   + (k["subway_card_most_subway_tokens"] if self.sub == p else 0)
                   + (k["archaeological_card_last_taken"] if self.arc == p else 0))
            area, kind = self.cards[p]
            if self.expert:
                if area == "districts":             # each district's buildings are counted as the game goes
                    pts += sum(1 for row in self.dcount if row[p] >= 3) * k["expert_area_objectives"][area]
                elif area:
                    pts += g.groups.count(area, mine[p], bits[p]) * k["expert_area_objectives"][area]
                if kind is not None:
                    pts += k["expert_neighborhood_objective_per_building_of_kind"] * sum(
                        1 for i in mine[p] if g.kind[i] == kind)
            elif area:
                pts += 3 * len(mine[p] & g.touch[area])
            out.append(pts)
        if self.expert:
            self._highest(out)
        return out

    def _highest(self, out: list) -> None:
        g, five = self.g, self.k["expert_highest_building_per_district"]
        for d in range(g.ndist):
            heights: dict = {}
            for i in g.members[d]:
                o = self.owner[i]
                if o >= 0:
                    heights.setdefault(o, []).append(_CLASS[self.value[i]])
            if not heights:
                continue
            keyed = {p: sorted(h, reverse=True) for p, h in heights.items()}
            top = max(keyed.values())
            for p, h in keyed.items():
                if h == top:
                    out[p] += five

    def winners(self, totals: list) -> list:
        best = max(totals)
        tied = [p for p in range(self.n) if totals[p] == best]
        most = max(self.counts[p] for p in tied)
        return [p for p in tied if self.counts[p] == most]

    # --- the playout policy: greedy-like for every seat -----------------------------------------------------------

    def gain(self, s: int, i: int, v: int) -> float:
        """What building `v` on `i` adds to seat s's points now (tokens, cards, highest, objectives), roughly."""
        g = 0.0
        t = self.tok[i]
        if t == 0:
            g += 3
        elif t == 1:
            g += 1
            if self.sub != s and (self.sub < 0 or self.coll[s][1] + 1 > self.coll[self.sub][1]):
                g += 3
        elif t == 2:
            g -= 1 if self.arc == s else 3
        area, kind = self.cards[s]
        geo = self.g
        if not self.expert:
            return g + 3 if area and i in geo.touch[area] else g
        d = self.dmax[geo.dist[i]]
        mine, c = d[s], _CLASS[v]
        if c > mine:
            other = d[1 - s] if self.n == 2 else max(x for p, x in enumerate(d) if p != s)
            if c > other and mine <= other:
                g += 5 if mine < other or other < 0 else 2.5
        if kind is not None and geo.kind[i] == kind:
            g += 2
        if area:
            g += self._area_gain(s, i, area)
        return g

    def _high(self, s: int, c: int) -> list:
        """By district, what a building of size class c adds to seat s's highest-building points (gain's part)."""
        if self.n == 2:
            o = 1 - s
            return [(5.0 if d[s] < d[o] or d[o] < 0 else 2.5) if c > d[s] and c > d[o] and d[s] <= d[o] else 0.0
                    for d in self.dmax]
        high = []
        for d in self.dmax:
            mine, other = d[s], max(d[:s] + d[s + 1:])
            high.append((5.0 if mine < other or other < 0 else 2.5) if c > mine and c > other and mine <= other
                        else 0.0)
        return high

    def _area_gain(self, s: int, i: int, area: str) -> float:
        """Completions of the area card's groups count in full; with `potential`, steps towards one count a share."""
        g, owner, pot = self.g, self.owner, self.potential
        if area == "districts":
            have = self.dcount[g.dist[i]][s]
            return 4.0 if have == 2 else pot * 4.0 * have / 2
        if area == "bridges":
            t = 0                                   # sum()'s start: the same additions, in the same order
            for j in g.partners[i]:
                o = owner[j]
                t += 4.0 if o == s else pot * 2.0 if o == EMPTY else 0.0
            return t
        if area == "statues":
            best = 0.0
            for a, b in g.statues_of[i]:
                have = (owner[a] == s) + (owner[b] == s)
                free = (owner[a] == EMPTY) + (owner[b] == EMPTY)
                if have == 2:
                    best = max(best, 7.0)
                elif have + free == 2:
                    best = max(best, pot * 7.0 * (have + 1) / 3)
            return best
        if area == "lakes":
            best = 0.0
            for x in g.lakes_of[i]:
                have = self.lcount[x][s]
                if have % 3 == 2:
                    best = max(best, 5.0)
                else:
                    best = max(best, pot * 5.0 * (have % 3 + 1) / 3)
            return best
        if area == "chains":
            near = [j for j in g.adj[i] if owner[j] == s]
            if len(near) >= 2 or any(owner[m] == s for j in near for m in g.adj[j] if m != i):
                return 4.0
            return pot * 4.0 * len(near) / 2 + pot
        return 0.0

    def choose(self, s: int, rng: random.Random, eps: float) -> tuple | None:
        """Seat s's move: (neighborhood, value) or None to pass; the lowest value, the best gain, a random slip."""
        h, owner = self.hands[s], self.owner
        if not self.call:
            opts = self.free                      # no bid stands between calls: every free one is EMPTY
            v, floor = h[0], -99.0
        else:
            w, last, lv = self.call[-1]
            opts = [j for j in self.g.adj[last] if owner[j] == EMPTY]
            v, floor = h[bisect_right(h, lv)], 0.0
            if self.deny:           # outbid also to take the standing bid's points from its bidder
                floor = -self.deny * self.gain(w, last, lv)
        if rng.random() < eps:
            return rng.choice(opts), v
        best = self.best(s, opts, v, floor)
        return None if best is None else (best, v)

    def best(self, s: int, opts: list, v: int, floor: float) -> int | None:
        """The first of `opts` whose gain(s, i, v) is the highest above `floor`: gain's very sums, in gain's order
        (tokens, highest, kind, objective), its parts shared by every option worked out once."""
        return self.best_gain(s, opts, v, floor)[0]

    def best_gain(self, s: int, opts: list, v: int, floor: float) -> tuple:
        """(best's option, its gain): the gain is gain(s, i, v)'s very float (None and `floor` when none is above)."""
        tok, sub = self.tok, self.sub
        t1 = 4.0 if sub != s and (sub < 0 or self.coll[s][1] + 1 > self.coll[sub][1]) else 1.0
        tg = (3.0, t1, -1.0 if self.arc == s else -3.0, 0.0)          # by token; tg[-1]: no token
        area, kind = self.cards[s]
        best = None
        if not self.expert:
            touch = self.g.touch[area] if area else ()
            for i in opts:
                x = tg[tok[i]]
                if i in touch:
                    x = x + 3
                if x > floor:
                    best, floor = i, x
            return best, floor
        c = _CLASS[v]
        high = self.highs[3 * s + c]                        # the highest building's part, by district
        if high is None:
            high = self.highs[3 * s + c] = self._high(s, c)
        return policy.BY_CARD.get(area, policy.other)(self, s, opts, floor, tg, high, self.g.kind_bonus[kind], area)

    def play_out(self, rng: random.Random, eps: float = 0.1) -> None:
        """choose's very moves, with the same draws from rng, for every seat until the end (choose, bid, pass_ and
        _advance inlined: the playouts are most of strong's CPU)."""
        draw, pick, adj, owner, hands = rng.random, rng.choice, self.g.adj, self.owner, self.hands
        best, after = self.best_gain, _AFTER[self.n]
        standing = None       # the standing bid's gain to its bidder, when best chose it: nothing has changed since
        while not self.finished:
            s = self.to_act
            h, call = hands[s], self.call
            if not call:
                opts, v, floor = self.free, h[0], -99.0
            else:
                w, last, lv = call[-1]
                opts = [j for j in adj[last] if owner[j] == EMPTY]
                v, floor = h[bisect_right(h, lv)], 0.0
                if self.deny:
                    floor = -self.deny * (self.gain(w, last, lv) if standing is None else standing)
            if draw() < eps:
                i, standing = pick(opts), None
            else:
                i, standing = best(s, opts, v, floor)
            passed = self.passed
            if i is None:                           # pass_: the standing bid stays
                passed |= 1 << s
                leader, i, v = call[-1]
                standing = None
            else:                                   # bid: it stands
                h.remove(v)
                owner[i] = IN_CALL
                call.append((s, i, v))
                leader = s
            room, nxt = None, -1                    # _advance: who can still outbid `v` on `i`'s neighbors
            for t in after[s]:
                if t == leader or passed >> t & 1:
                    continue
                if room is None:
                    room = False
                    for j in adj[i]:
                        if owner[j] == EMPTY:
                            room = True
                            break
                ht = hands[t]
                if not room or not ht or ht[-1] <= v:
                    passed |= 1 << t
                elif nxt < 0:
                    nxt = t
            self.passed = passed
            if nxt >= 0:
                self.to_act = nxt
            else:
                self._end_call(leader)
