"""`normal` and `strong`: search the current call for proposal in worlds where the others' hidden cards are guessed.

How it thinks (docs/PLAYERS.md says more):
- Worlds: the others' secret cards are drawn from the cards this seat has not seen, weighted by what each
  opponent has built so far (a player who keeps building by lakes probably holds Lakes). Never their real cards.
- In each world, a max-n search of the call: each seat in turn passes or outbids next to the last bid with a few
  telling values (its lowest, the lowest in each height class, the lowest nobody still in the call can beat).
  A call that ends is valued by who builds what, where: the points it would change if the game ended then, the
  objectives it brings closer, and the buildings each seat still holds to fight later calls with.
- A seat's utility is its value minus the best other seat's; the game's end is valued by who wins.
Budgets are counted in nodes, never in time, so a decision is reproducible from the seed.
"""
from __future__ import annotations

import random
from itertools import combinations

from companion.game import load_board
from companion.game.board import Board
from companion.game.rules import legal_actions
from companion.game.scoring import area_groups, family_touch
from companion.game.state import Action, Bid, Pass, State

from .seen import unseen_cards

_TOKENS = ("trendy", "subway", "archaeological")


class Style:
    """How hard a level thinks: worlds drawn, search nodes per world, depth, first bids looked at, weights."""

    def __init__(self, worlds: int, nodes: int, depth: int, starts: int, hand: float = 0.3,
                 potential: float = 0.35, win: float = 15.0, tempo: float = 2.0, slip: float = 0.0,
                 objectives: float = 1.0):
        self.worlds, self.nodes, self.depth, self.starts = worlds, nodes, depth, starts
        self.hand, self.potential, self.win, self.tempo, self.slip = hand, potential, win, tempo, slip
        self.objectives = objectives


STRONG = Style(worlds=4, nodes=500, depth=4, starts=10)
NORMAL = Style(worlds=1, nodes=20, depth=1, starts=4, potential=0.0, tempo=0.0)


class Facts:
    """Facts of the position shared by every world: hands before the call, open neighborhoods, public points."""

    def __init__(self, seen: State, board: Board):
        self.board, self.seen = board, seen
        self.n = n = len(seen.setup.seats)
        self.expert = seen.setup.mode == "expert"
        self.k = board.scoring
        hands = [list(h) for h in seen.hands]
        for b in seen.call:                       # the call's bids go back to their owners when it ends
            hands[seen.seat(b.player)].append(b.value)
        self.start_hands = [tuple(sorted(h)) for h in hands]
        in_play = board.in_play(seen.setup.removed_districts)
        self.open = frozenset(nb for nb in in_play if nb not in seen.built)
        self.adj = {nb: frozenset(board.neighborhoods[nb].neighbors & self.open) for nb in self.open}
        self.mine = [set() for _ in range(n)]
        for nb, b in seen.built.items():
            self.mine[seen.seat(b.player)].add(nb)
        self.token_pts = [self._token_points(i, seen.collected, seen.subway_card, seen.archaeological_card)
                          for i in range(n)]
        self.heights = {}                         # district -> seat -> sorted size classes, tallest first
        for nb, b in seen.built.items():
            d = board.neighborhoods[nb].district
            self.heights.setdefault(d, {}).setdefault(seen.seat(b.player), []).append(board.size_class(b.value))
        self.high_pts = [0] * n
        if self.expert:
            for d in self.heights:
                for i in self._tops(self.heights[d]):
                    self.high_pts[i] += self.k["expert_highest_building_per_district"]
        self._public: dict = {}

    def _token_points(self, i: int, collected, subway, arch) -> int:
        t, s, a = collected[i]
        k = self.k
        return (t * k["trendy_token"] + s * k["subway_token"] + a * k["archaeological_token"]
                + (k["subway_card_most_subway_tokens"] if subway == i else 0)
                + (k["archaeological_card_last_taken"] if arch == i else 0))

    @staticmethod
    def _tops(heights: dict) -> list:
        keyed = {i: sorted(h, reverse=True) for i, h in heights.items()}
        top = max(keyed.values())
        return [i for i, h in keyed.items() if h == top]

    def public_after(self, w: int, nb: str, value: int) -> tuple:
        """Token, special-card and highest-building points of every seat once `w` builds `value` on `nb`."""
        cls = self.board.size_class(value) if self.expert else 0
        key = (w, nb, cls)
        found = self._public.get(key)
        if found is not None:
            return found
        seen = self.seen
        collected, subway, arch = seen.collected, seen.subway_card, seen.archaeological_card
        token = seen.tokens.get(nb)
        pts = list(self.token_pts)
        if token:
            counts = list(collected[w])
            counts[_TOKENS.index(token)] += 1
            collected = collected[:w] + (tuple(counts),) + collected[w + 1:]
            if token == "subway" and (subway is None or (subway != w and counts[1] > collected[subway][1])):
                subway = w
            elif token == "archaeological":
                arch = w
            pts = [self._token_points(i, collected, subway, arch) for i in range(self.n)]
        if self.expert:
            d = self.board.neighborhoods[nb].district
            old = self.heights.get(d, {})
            new = {i: list(h) for i, h in old.items()}
            new.setdefault(w, []).append(cls)
            five = self.k["expert_highest_building_per_district"]
            before = set(self._tops(old)) if old else set()
            after = set(self._tops(new))
            for i in range(self.n):
                pts[i] += self.high_pts[i] + five * ((i in after) - (i in before))
        found = self._public[key] = tuple(pts)
        return found


class _World:
    """One guess at every seat's secret cards: private points and objective potential per seat."""

    def __init__(self, table: Facts, cards: list, style: Style):
        self.t, self.cards, self.style = table, cards, style
        self.private = [self._private(i, table.mine[i], table.open) for i in range(table.n)]
        self._leaf: dict = {}

    def _private(self, i: int, mine: set, open_: frozenset) -> float:
        """Points from `i`'s own cards with `mine` built, plus a share of the groups still open to it."""
        t, (area, kind) = self.t, self.cards[i]
        board = t.board
        if not area or not self.style.objectives:
            return 0.0
        if not t.expert:
            return 3.0 * len(mine & _family_touch(board, area))
        k = t.k
        pts = area_groups(board, area, mine) * k["expert_area_objectives"][area]
        if kind:
            pts += k["expert_neighborhood_objective_per_building_of_kind"] * sum(
                1 for nb in mine if board.neighborhoods[nb].kind == kind)
        if self.style.potential:
            pts += self.style.potential * _potential(board, area, mine, open_) * k["expert_area_objectives"][area]
        return pts

    def leaf(self, w: int, nb: str, value: int) -> tuple:
        """Every seat's value once the call ends with `w` building `value` on `nb`."""
        key = (w, nb, value)
        found = self._leaf.get(key)
        if found is not None:
            return found
        t, style = self.t, self.style
        pub = t.public_after(w, nb, value)
        open_after = t.open - {nb}
        vals = []
        built_w = len(t.mine[w]) + 1
        finished = built_w == 13
        for i in range(t.n):
            if i == w:
                priv = self._private(i, t.mine[i] | {nb}, open_after)
            else:
                priv = self.private[i]
            vals.append(pub[i] + priv)
        if finished:
            counts = [len(t.mine[i]) + (i == w) for i in range(t.n)]
            best = max(vals)
            most = max(counts[i] for i in range(t.n) if vals[i] == best)
            winners = [i for i in range(t.n) if vals[i] == best and counts[i] == most]
            found = tuple(v + (style.win if i in winners else 0.0) for i, v in enumerate(vals))
        else:
            # Only as many buildings as there are calls left can still be built: the game ends when anyone's
            # last building stands, so a hand is worth its best `left` values, and a building of it is worth `tempo`.
            left = min(13 - len(t.mine[i]) - (i == w) for i in range(t.n))
            for i in range(t.n):
                hand = t.start_hands[i]
                if i == w:
                    hand = tuple(x for x in hand if x != value)
                top = hand[-left:] if left < len(hand) else hand
                vals[i] += style.hand * sum(top) + style.tempo * (i == w)
            found = tuple(vals)
        self._leaf[key] = found
        return found


_TOUCH: dict = {}


def _family_touch(board: Board, area: str) -> frozenset:
    """Family area card: the neighborhoods next to its feature, kept once per card (the search asks often)."""
    found = _TOUCH.get(area)
    if found is None:
        found = _TOUCH[area] = family_touch(board, area)
    return found


def _potential(board: Board, area: str, mine: set, open_: frozenset) -> float:
    """Groups of the Expert area card not yet made but still possible: one missing counts 1, two missing 1/3."""
    def part(members, need):
        have = len(mine.intersection(members))
        if have >= need or have + len(open_.intersection(members)) < need:
            return 0.0
        return 1.0 if need - have == 1 else (1 / 3 if have else 0.0)

    if area == "statues":
        return sum(part(s.neighborhoods, len(s.neighborhoods)) for s in board.statues)
    if area == "lakes":
        return sum(part(l.neighborhoods, 3) for l in board.lakes)
    if area == "districts":
        return sum(part(nbs, 3) for nbs in board.districts.values())
    if area == "bridges":
        ends = {a for a, b in board.bridges if a in mine and b in open_} | {
            b for a, b in board.bridges if b in mine and a in open_}
        return float(len(ends))
    if area == "chains":
        pairs = sum(1 for a, b in combinations(sorted(mine), 2)
                    if b in board.neighborhoods[a].neighbors
                    and (board.neighborhoods[a].neighbors | board.neighborhoods[b].neighbors) & open_)
        return min(float(pairs), len(mine) / 2)
    return 0.0


def guess_cards(seen: State, me: int, table: Facts, rng: random.Random) -> list:
    """The others' secret cards drawn from the unseen decks, each card weighted by how its holder has built."""
    board = table.board
    color = seen.setup.seats[me].color
    areas, kinds = unseen_cards(seen, color)
    areas, kinds = list(areas), list(kinds)
    cards = [None] * table.n
    cards[me] = (seen.setup.seats[me].area, seen.setup.seats[me].neighborhood)
    for j in range(table.n):
        if j == me:
            continue
        mine = table.mine[j]
        if table.expert:
            wa = [1.0 + 2.0 * area_groups(board, a, mine) + _potential(board, a, mine, table.open) for a in areas]
            wk = [(1.0 + sum(1 for nb in mine if board.neighborhoods[nb].kind == k)) ** 2 for k in kinds]
        else:
            wa = [(1.0 + len(mine & _family_touch(board, a))) ** 2 for a in areas]
            wk = [1.0 for _ in kinds]
        a = rng.choices(areas, wa)[0]
        k = rng.choices(kinds, wk)[0]
        areas.remove(a)
        if k is not None:
            kinds.remove(k)
        cards[j] = (a, k)
    return cards


class _Search:
    """Max-n over one call in one world, with a node budget."""

    def __init__(self, world: _World, style: Style):
        self.w, self.t, self.style = world, world.t, style
        self.left = style.nodes

    def utility(self, vals: tuple, i: int) -> float:
        return vals[i] - max(vals[:i] + vals[i + 1:])

    def values(self, hands, s: int, floor: int, passed) -> list:
        """The bids worth trying: lowest, lowest per height class (Expert), lowest that no one still in can beat."""
        vals = [x for x in hands[s] if x > floor]
        if not vals:
            return []
        out = {vals[0]}
        rival = max((hands[j][-1] for j in range(self.t.n) if j != s and j not in passed and hands[j]), default=0)
        beat = next((x for x in vals if x > rival), None)
        if beat is not None:
            out.add(beat)
        if self.t.expert:
            seen_cls = set()
            for x in vals:
                c = self.t.board.size_class(x)
                if c not in seen_cls:
                    seen_cls.add(c)
                    out.add(x)
        return sorted(out)

    def after(self, hands, taken, passed, last, actor: int, depth: int) -> tuple:
        """The call's value vector once `actor` has acted and `last` is the standing bid."""
        t = self.t
        w, nb, v = last
        room = t.adj[nb] - taken
        passed = set(passed)
        to_act = None
        for k in range(1, t.n):
            s = (actor + k) % t.n
            if s == w or s in passed:
                continue
            if room and hands[s] and hands[s][-1] > v:
                to_act = s
                break
            passed.add(s)
        if to_act is None or depth <= 0 or self.left <= 0:
            return self.w.leaf(w, nb, v)
        self.left -= 1
        s = to_act
        best = self.after(hands, taken, passed | {s}, last, s, depth - 1)
        best_u = self.utility(best, s)
        bids = []                                   # the same for every neighborhood: worked out once
        for v2 in self.values(hands, s, v, passed):
            h = list(hands)
            h[s] = tuple(x for x in hands[s] if x != v2)
            bids.append((v2, h))
        for nb2 in sorted(room):
            for v2, h in bids:
                vals = self.after(h, taken | {nb2}, passed, (s, nb2, v2), s, depth - 1)
                u = self.utility(vals, s)
                if u > best_u:
                    best, best_u = vals, u
        return best


def _root_actions(seen: State, me: int, table: Facts, world: _World, style: Style) -> list:
    """The decisions looked at: pass when allowed, and a few values on the most promising neighborhoods."""
    board = table.board
    legal = legal_actions(seen, board)
    color = seen.setup.seats[me].color
    search = _Search(world, style)
    hands = list(seen.hands)
    floor = seen.call[-1].value if seen.call else 0
    nbs = sorted(legal.neighborhoods)
    if len(nbs) > style.starts:
        low = legal.values[0]
        rank = sorted(nbs, key=lambda nb: -search.utility(world.leaf(me, nb, low), me))
        nbs = sorted(rank[:style.starts])
    out = [Pass(color)] if legal.can_pass else []
    vals = [v for v in search.values(hands, me, floor, seen.passed) if v in legal.values]
    for nb in nbs:
        out.extend(Bid(color, nb, v) for v in vals)
    return out


def weigh(seen: State, color: str, rng: random.Random, style: Style, include=()) -> list:
    """[(action, mean utility over the worlds)] for the decisions looked at, then each of `include` not among them."""
    board = load_board()
    me = seen.seat(color)
    table = Facts(seen, board)
    worlds = [_World(table, guess_cards(seen, me, table, rng), style) for _ in range(style.worlds)]
    actions = _root_actions(seen, me, table, worlds[0], style)
    budget = max(style.nodes // max(len(actions), 1), 4)   # the same effort for every decision looked at
    actions += [a for a in dict.fromkeys(include) if a not in actions]
    totals = [0.0] * len(actions)
    taken0 = frozenset(b.neighborhood for b in seen.call)
    for world in worlds:
        search = _Search(world, style)
        for a, action in enumerate(actions):
            search.left = budget
            hands = list(seen.hands)
            if isinstance(action, Pass):
                if not seen.call:
                    continue
                last = seen.call[-1]
                vals = search.after(hands, taken0, seen.passed | {me}, (seen.seat(last.player), last.neighborhood,
                                                                         last.value), me, style.depth)
            else:
                hands[me] = tuple(x for x in hands[me] if x != action.value)
                vals = search.after(hands, taken0 | {action.neighborhood}, seen.passed,
                                    (me, action.neighborhood, action.value), me, style.depth)
            totals[a] += search.utility(vals, me)
    return [(action, totals[a] / len(worlds)) for a, action in enumerate(actions)]


def decide(seen: State, color: str, rng: random.Random, style: Style) -> Action:
    """The action with the best mean utility over the worlds drawn."""
    board = load_board()
    legal = legal_actions(seen, board)
    if style.slip and rng.random() < style.slip:
        return rng.choice(list(legal))
    if len(legal) == 1:
        return next(iter(legal))
    weighed = weigh(seen, color, rng, style)
    best = max(range(len(weighed)), key=lambda a: (weighed[a][1], -a))
    return weighed[best][0]


def strong(seen: State, color: str, rng: random.Random) -> Action:
    return decide(seen, color, rng, STRONG)


def normal(seen: State, color: str, rng: random.Random) -> Action:
    return decide(seen, color, rng, NORMAL)

