"""Thousands of seeded random games: replay, conservation, legal moves and scores hold in every position."""
import json
import random
from collections import Counter
from functools import lru_cache

import pytest

from games import BOARD, RAW, brute_area, random_game

from companion.game import RuleError, apply, legal_actions
from companion.game.record import replay, to_record
from companion.game.scoring import explain
from companion.game.state import Bid, Pass

GAMES_PER_CHUNK = 500
CHUNKS = 4  # 2000 games a run
ADJ = {n["id"]: set(n["neighbors"]) for n in RAW["neighborhoods"]}
DISTRICT = {n["id"]: n["district"] for n in RAW["neighborhoods"]}
ANY_NEIGHBORHOOD = sorted(BOARD.neighborhoods) + ["X01"]   # X01: no such neighborhood


@lru_cache(maxsize=None)
def in_play(removed_districts) -> frozenset:
    return frozenset(n for n, d in DISTRICT.items() if d not in removed_districts)


def expected_legal(state):
    """The rulebook's options, derived afresh: (neighborhoods, values) for the player to act."""
    p = state.to_act
    empty = in_play(state.setup.removed_districts) - set(state.built) - {b.neighborhood for b in state.call}
    if not state.call:
        return empty, set(state.hands[p])
    last = state.call[-1]
    return empty & ADJ[last.neighborhood], {v for v in state.hands[p] if v > last.value}


def check_position(state, initial_tokens):
    n = len(state.setup.seats)
    on_board = Counter(b.player for b in state.call)
    for i, color in enumerate(state.setup.colors):
        built = [b.value for b in state.built.values() if b.player == color]
        bid = [b.value for b in state.call if b.player == color]
        assert state.built_count[i] == len(built)
        # 13 buildings per player: built + in hand + bid in this call
        assert sorted(built + bid + list(state.hands[i])) == list(range(1, 14))
        assert on_board[color] == len(bid)
    left = Counter(state.tokens.values())
    for k, kind in enumerate(("trendy", "subway", "archaeological")):
        assert left[kind] + sum(c[k] for c in state.collected) == initial_tokens[kind]
    assert all(state.setup.tokens[nb] == t for nb, t in state.tokens.items())
    assert not set(state.tokens) & set(state.built)
    subway = [c[1] for c in state.collected]
    assert (state.subway_card is None) == (max(subway) == 0)
    if state.subway_card is not None:
        assert subway[state.subway_card] == max(subway)
    assert (state.archaeological_card is None) == (sum(c[2] for c in state.collected) == 0)
    assert state.finished == (max(state.built_count) == 13)
    assert sum(state.built_count) == len(state.built) and all(
        DISTRICT[nb] not in state.setup.removed_districts for nb in state.built)
    if not state.finished:
        assert state.to_act is not None and state.to_act not in state.passed
        nbs, values = expected_legal(state)
        la = legal_actions(state, BOARD)
        assert (la.player, la.neighborhoods, set(la.values), la.can_pass) == (
            state.setup.colors[state.to_act], nbs, values, bool(state.call))
        # Whoever is asked to act holds at least one legal bid: the others passed automatically.
        assert nbs and values
        for s in range(n):
            if state.call and s not in state.passed and s != state.seat(state.call[-1].player):
                assert max(state.hands[s], default=0) > state.call[-1].value


def random_other(state, rng):
    """An action drawn from everything anyone might send, legal or not."""
    color = rng.choice(state.setup.colors + ("green",))
    if rng.random() < 0.2:
        return Pass(color)
    return Bid(color, rng.choice(ANY_NEIGHBORHOOD), rng.randint(0, 14))


def check_actions(state, rng, tries=4):
    """Sampled legal actions are accepted; sampled others are refused (written automatic passes too: only
    a record may hold those, and only record.replay reads them)."""
    la = legal_actions(state, BOARD)
    if la:
        nbs = sorted(la.neighborhoods)
        for _ in range(tries):
            a = Bid(la.player, rng.choice(nbs), rng.choice(la.values)) if la.values else Pass(la.player)
            apply(state, a, BOARD)
        if la.can_pass:
            apply(state, Pass(la.player), BOARD)
    for _ in range(tries):
        a = random_other(state, rng)
        if a in la:
            continue
        try:       # as pytest.raises(RuleError), without its cost: this runs some 60,000 times a run
            apply(state, a, BOARD)
        except RuleError:
            continue
        pytest.fail(f"{a} was accepted though it is not among the legal actions")


def check_score(final):
    info = explain(final, BOARD)
    for i, seat in enumerate(final.setup.seats):
        p = info["scores"]["players"][seat.color]
        assert len(p["breakdown"]) == 8 and p["total"] == sum(p["breakdown"].values())
        if final.setup.mode == "expert":
            mine = {nb for nb, b in final.built.items() if b.player == seat.color}
            assert info["details"][seat.color]["area_groups"] == brute_area(seat.area, mine)
    totals = {c: p["total"] for c, p in info["scores"]["players"].items()}
    best = max(totals.values())
    tied = [c for c in final.setup.colors if totals[c] == best]
    most = max(final.built_count[final.seat(c)] for c in tied)
    assert info["scores"]["winners"] == [c for c in tied if final.built_count[final.seat(c)] == most]


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_seeded_random_games(chunk):
    finished = 0
    for seed in range(chunk * GAMES_PER_CHUNK, (chunk + 1) * GAMES_PER_CHUNK):
        rng = random.Random(seed)
        setup, actions, states = random_game(rng, record_auto=0.3)
        final = states[-1]
        finished += final.finished
        # The record rebuilds the very same state, also after a trip through JSON text.
        doc = to_record(setup, actions)
        assert replay(doc, BOARD) == final
        if seed % 10 == 0:
            assert replay(json.loads(json.dumps(doc)), BOARD) == final
        initial = Counter(setup.tokens.values())
        for i, state in enumerate(states):
            check_position(state, initial)
            if i % 3 == seed % 3:
                check_actions(state, rng)
        check_actions(final, rng, tries=10)
        check_score(final)
        # Leaving every automatic pass out of the record leads to the very same state.
        plain = [a for a, before, after in zip(actions, states, states[1:]) if after is not before]
        assert len(plain) == final.moves
        assert replay(to_record(setup, plain), BOARD) == final
    assert finished == GAMES_PER_CHUNK


def test_every_listed_action_is_accepted_and_every_other_bid_of_the_player_refused():
    rng = random.Random(2024)
    for _ in range(12):
        setup, actions, states = random_game(rng)
        for state in states[::4]:
            la = legal_actions(state, BOARD)
            if not la:
                continue
            legal = set(la)
            assert len(legal) == len(la)
            for a in legal:
                after = apply(state, a, BOARD)
                assert after.moves == state.moves + 1
            for nb in sorted(BOARD.neighborhoods):
                for v in range(1, 14):
                    a = Bid(la.player, nb, v)
                    if a not in legal:
                        with pytest.raises(RuleError):
                            apply(state, a, BOARD)
