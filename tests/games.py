"""Shared helpers: setups, positions and seeded random games built through the real rules core."""
from __future__ import annotations

import random
from dataclasses import replace
from itertools import combinations
from types import MappingProxyType
from typing import Iterable, Mapping, Optional

from companion.game import board as board_mod
from companion.game.board import PERIPHERAL, TOKEN_KINDS, load_board
from companion.game.rules import apply, legal_actions, new_game
from companion.game.setup import deal, make_setup, random_layout
from companion.game.state import COLORS, Bid, Building, Pass, Seat, Setup, State

BOARD = load_board()
RAW = board_mod.board_data()
TWO_PLAYER_PAIRS = (("north", "east"), ("east", "south"), ("south", "west"), ("west", "north"))


def layout_with(players: int, removed: Iterable[str] = (), fixed: Optional[Mapping[str, str]] = None,
                seed: int = 0) -> dict[str, str]:
    """A valid token layout holding `fixed` where given; the rest filled at random within the printed counts."""
    rng = random.Random(seed)
    removed = set(removed)
    fixed = dict(fixed or {})
    kinds = dict(RAW["player_count_setup"][str(players)]["tokens"])
    quota = {d["id"]: d["random_setup_tokens"] for d in RAW["districts"] if d["id"] not in removed}
    for nb, kind in fixed.items():
        kinds[kind] -= 1
        quota[BOARD.neighborhoods[nb].district] -= 1
    bag = [k for k in TOKEN_KINDS for _ in range(kinds[k])]
    rng.shuffle(bag)
    layout = dict(fixed)
    for district, need in quota.items():
        spots = [n["id"] for n in RAW["neighborhoods"]
                 if n["district"] == district and not n["blind_alley"] and n["id"] not in fixed]
        for nb in rng.sample(spots, need):
            layout[nb] = bag.pop()
    assert not bag
    return layout


def setup_for(colors=("blue", "red", "white", "gray"), mode: str = "family",
              removed: Iterable[str] = (), tokens: Optional[Mapping[str, str]] = None,
              cards: Optional[list] = None, seed: int = 0) -> Setup:
    """A checked setup; cards dealt by seed unless given as [(area, neighborhood), ...]."""
    removed = tuple(removed)
    if cards is None:
        cards = deal(mode, len(colors), random.Random(seed))
    if tokens is None:
        tokens = layout_with(len(colors), removed, seed=seed)
    seats = [Seat(c, c.title(), a, n) for c, (a, n) in zip(colors, cards)]
    return make_setup(mode, seats, removed, tokens)


def random_setup(rng: random.Random, players: Optional[int] = None, mode: Optional[str] = None) -> Setup:
    """Any legal table: 2-4 players, either mode, any allowed removal, random tokens and cards."""
    n = players or rng.choice((2, 3, 4))
    colors = rng.sample(COLORS, n)
    mode = mode or rng.choice(("family", "expert"))
    removed = () if n == 4 else (rng.choice(PERIPHERAL),) if n == 3 else rng.choice(TWO_PLAYER_PAIRS)
    cards = deal(mode, n, rng)
    tokens = random_layout(n, frozenset(removed), rng)
    seats = [Seat(c, "", a, h) for c, (a, h) in zip(colors, cards)]
    return make_setup(mode, seats, removed, tokens)


def random_action(state: State, rng: random.Random, pass_rate: float = 0.35):
    """A uniformly chosen bid (neighborhood and value), or a pass at `pass_rate` when passing is allowed."""
    la = legal_actions(state, BOARD)
    if la.can_pass and (not la.values or rng.random() < pass_rate):
        return Pass(la.player)
    return Bid(la.player, rng.choice(sorted(la.neighborhoods)), rng.choice(la.values))


def random_game(rng: random.Random, setup: Optional[Setup] = None, record_auto: float = 0.0,
                max_actions: Optional[int] = None):
    """Play to the end (or `max_actions`); returns (setup, actions, states) with states[0] the new game.

    `record_auto` is the chance that each automatic pass is written down, right after the decision that caused
    it; such a pass is no decision (RECORD.md), so its state is the one before it."""
    setup = setup or random_setup(rng)
    state = new_game(setup)
    actions, states = [], [state]
    pass_rate = rng.choice((0.1, 0.35, 0.7))
    while not state.finished and (max_actions is None or len(actions) < max_actions):
        action = random_action(state, rng, pass_rate)
        state = apply(state, action, BOARD)
        actions.append(action)
        states.append(state)
        for seat in state.auto_passed:
            if rng.random() < record_auto:
                actions.append(Pass(setup.seats[seat].color))
                states.append(state)
    return setup, actions, states


def automatic_pass_points(actions: list, states: list, place) -> list[tuple[int, ...]]:
    """For a game whose `actions` write no automatic pass (`states[i]` before `actions[i]`): per decision, the
    seats whose automatic pass is written right after it, each where `place(call, seat)` says: "out" (left
    out), "after" (right after the decision that left the player without a legal bid) or "turn" (where the
    turn, going clockwise as at the table, comes to the player). RECORD.md: "it may stand either right after
    the action that left that player without a legal bid, or where the turn would have come to that player
    (...); passes written at one point follow seating order, and this holds in the call that ends the game
    too"."""
    points, owed = [], set()
    for before, after in zip(states, states[1:len(actions) + 1]):
        n, actor, call = len(before.setup.seats), before.to_act, sum(before.built_count)
        here = []
        for seat in after.auto_passed:
            where = place(call, seat)
            if where == "after":
                here.append(seat)
            elif where == "turn":
                owed.add(seat)
        # The turn goes round from the player who acted to the next to act, or to the last bidder at the
        # call's end; every player it comes to on the way who passed automatically says "pass".
        stop = after.to_act if after.call else after.start
        seat = (actor + 1) % n
        while seat != stop:
            if seat in owed:
                owed.remove(seat)
                here.append(seat)
            seat = (seat + 1) % n
        assert after.call or not owed, "at the end of a call the turn comes to every player still owed a pass"
        points.append(tuple(sorted(here, key=lambda s: (s - actor - 1) % n)))  # clockwise from who acted
    return points


def with_automatic_passes(actions: list, states: list, place) -> list:
    """The record's actions: `actions` with the automatic passes written where `place` says (as above)."""
    colors = states[0].setup.colors
    written = []
    for action, here in zip(actions, automatic_pass_points(actions, states, place)):
        written.append(action)
        written += [Pass(colors[s]) for s in here]
    return written


def white_12_red_13():
    """The table of issue 11: seats Blue, Gray, White, Red; Blue and Gray built their 13s. Gray opens 1,
    White bids 12 (Blue and Gray cannot beat it: they pass automatically), Red 13 (so does White; Red builds).

    Returns (setup, actions before that call, the call's three bids, Red's opening bid of the next call)."""
    setup = setup_for(("blue", "gray", "white", "red"), tokens=layout_with(4, seed=11), seed=11)
    state, head = new_game(setup), []
    for color, nb in (("blue", "S10"), ("gray", "N01")):
        state, actions = build(state, color, nb, 13)
        head += actions
    assert state.to_act_color == "gray" and 13 not in state.hands[0] + state.hands[1]
    call = [Bid("gray", "C01", 1), Bid("white", "C03", 12), Bid("red", "C04", 13)]
    for action in call:
        state = apply(state, action, BOARD)
    assert state.built["C04"] == Building("red", "C04", 13) and state.to_act_color == "red"
    return setup, head, call, Bid("red", "C11", 1)


def build(state: State, color: str, nb: str, value: Optional[int] = None) -> tuple[State, list]:
    """Play one whole call through the rules so that `color` builds in `nb` (lowest value unless given)."""
    actions = []

    def act(a):
        nonlocal state
        state = apply(state, a, BOARD)
        actions.append(a)

    start = state.setup.seats[state.to_act].color
    mine = state.hands[state.seat(color)]
    if start == color:
        act(Bid(color, nb, value or mine[0]))
    else:
        opener = next(n for n in sorted(BOARD.neighborhoods[nb].neighbors)
                      if n not in state.built and BOARD.neighborhoods[n].district not in state.setup.removed_districts)
        v = value or mine[-1]
        low = state.hands[state.seat(start)][0]
        assert low < v, "the opener needs a lower building than the builder's"
        act(Bid(start, opener, low))
        while state.to_act is not None and state.call and state.setup.seats[state.to_act].color != color:
            act(Pass(state.setup.seats[state.to_act].color))
        act(Bid(color, nb, value or next(x for x in mine if x > low)))
    while state.call:
        act(Pass(state.setup.seats[state.to_act].color))
    assert state.last_call.player == color and state.last_call.neighborhood == nb, state.last_call
    return state, actions


def position(setup: Setup, buildings: Mapping[str, tuple[str, int]], collected=None,
             subway_card: Optional[str] = None, archaeological_card: Optional[str] = None,
             finished: bool = True) -> State:
    """A state with these buildings ({nb: (color, value)}), for scoring a position directly."""
    state = new_game(setup)
    counts = [0] * len(setup.seats)
    hands = [list(h) for h in state.hands]
    for nb, (color, value) in buildings.items():
        s = state.seat(color)
        counts[s] += 1
        hands[s].remove(value)
    return replace(
        state,
        built=MappingProxyType({nb: Building(c, nb, v) for nb, (c, v) in buildings.items()}),
        built_count=tuple(counts),
        hands=tuple(tuple(h) for h in hands),
        collected=tuple(tuple(collected.get(c, (0, 0, 0))) for c in setup.colors) if collected else state.collected,
        subway_card=None if subway_card is None else state.seat(subway_card),
        archaeological_card=None if archaeological_card is None else state.seat(archaeological_card),
        finished=finished,
        to_act=None if finished else state.to_act,
    )


# --- An independent count of Expert area groups, straight from the raw board JSON -----------------

_ADJ = {}
for _e in RAW["adjacencies"]:
    _ADJ.setdefault(_e["a"], set()).add(_e["b"])
    _ADJ.setdefault(_e["b"], set()).add(_e["a"])
_BRIDGES = [frozenset((e["a"], e["b"])) for e in RAW["adjacencies"] if e["bridge"]]


def cluster(rng: random.Random, size: int) -> set[str]:
    """A connected clump of neighborhoods: the dense shapes where counting goes wrong (and scoring is slowest)."""
    s = {rng.choice(sorted(BOARD.neighborhoods))}
    while len(s) < size:
        frontier = sorted({n for x in s for n in BOARD.neighborhoods[x].neighbors} - s)
        if not frontier:
            break
        s.add(rng.choice(frontier))
    return s


def candidate_groups(card: str, mine: set[str]) -> list[frozenset]:
    """Every group the card could score, each a set of buildings (lakes tagged so one lake scores once)."""
    if card == "bridges":
        return [b for b in _BRIDGES if b <= mine]
    if card == "statues":
        return [frozenset(s["neighborhoods"]) for s in RAW["statues"] if set(s["neighborhoods"]) <= mine]
    if card == "lakes":
        return [frozenset(trio) | {("lake", lake["id"])} for lake in RAW["lakes"]
                for trio in combinations(sorted(mine & set(lake["neighborhoods"])), 3)]
    if card == "chains":
        # Three buildings are connected when at least two of their three pairs touch.
        return [frozenset(t) for t in combinations(sorted(mine), 3)
                if sum(b in _ADJ[a] for a, b in combinations(t, 2)) >= 2]
    raise ValueError(card)


def brute_max_disjoint(groups: list[frozenset]) -> int:
    """Try every family of groups (include or leave out each), keep the largest pairwise-disjoint one."""
    groups = sorted(set(groups), key=sorted_key)
    if not groups:
        return 0
    smallest = min(len(g) for g in groups)
    universe = frozenset().union(*groups)
    best = 0

    def go(i: int, used: frozenset, count: int) -> None:
        nonlocal best
        best = max(best, count)
        # An exact bound: never more groups than groups left, nor than free items allow.
        if i == len(groups) or count + min(len(groups) - i, len(universe - used) // smallest) <= best:
            return
        if not groups[i] & used:
            go(i + 1, used | groups[i], count + 1)
        go(i + 1, used, count)

    go(0, frozenset(), 0)
    return best


def sorted_key(g: frozenset) -> list[str]:
    return sorted(map(str, g))


def brute_area(card: str, mine: set[str]) -> int:
    """The Expert area group count by brute force (districts simply counted)."""
    if card == "districts":
        return sum(1 for d in RAW["districts"] if len(mine & set(d["neighborhoods"])) >= 3)
    return brute_max_disjoint(candidate_groups(card, set(mine)))
