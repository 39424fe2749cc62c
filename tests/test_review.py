"""The Pi's review of each person's decisions and its hints (issue 41, items 3 and 4), through the pure core:
never peeking, finding planted mistakes, ranking the levels, hints legal and blind to the others' cards."""
from __future__ import annotations

import random
from dataclasses import replace

import pytest

from companion import players
from companion.game.rules import apply, legal_actions, new_game
from companion.game.state import Bid, Pass
from companion.players.match import random_setup
from companion.players.review import advice, is_decision, judge, review_game, seed_of
from companion.players.seen import hide


def played(levels, mode, seed, person=None, plant=None):
    """A game where seat i plays levels[i]; `person`'s seat plays exactly as the review would (strong's choice with
    the review's own seed), except the decision `plant` picks, which it returns with its index."""
    rng = random.Random(seed)
    setup = random_setup(len(levels), mode, rng)
    rngs = [random.Random(f"{seed}/{i}") for i in range(len(levels))]
    state, actions, planted = new_game(setup), [], None
    while not state.finished:
        color, p = state.to_act_color, state.to_act
        seen = hide(state, color)
        if color == person and is_decision(state):
            action, _ = judge(seen, color, Pass(color) if legal_actions(state).can_pass else next(iter(
                legal_actions(state))), seed_of("g", len(actions)))
            if planted is None and plant is not None:
                blunder = plant(seen, color, action, seed_of("g", len(actions)))
                if blunder is not None:
                    action, planted = blunder, (len(actions), blunder)
        else:
            action = players.play(seen, color, levels[p], rngs[p])
        actions.append(action)
        state = apply(state, action)
    return setup, actions, planted


def costly(kind: str):
    """A planter: at the first decision where a move of `kind` plainly gives points away (3 or more), that move."""
    def plant(seen, color, best, seed):
        legal = legal_actions(seen)
        if kind == "pass":
            options = [Pass(color)] if legal.can_pass and isinstance(best, Bid) else []
        elif kind == "overbid":   # strong's neighborhood, with the highest building left instead
            options = ([Bid(color, best.neighborhood, legal.values[-1])]
                       if isinstance(best, Bid) and best.value != legal.values[-1] else [])
        else:                     # "elsewhere": strong's value, on the neighborhood it rates lowest
            options = ([Bid(color, nb, best.value) for nb in sorted(legal.neighborhoods) if nb != best.neighborhood]
                       if isinstance(best, Bid) else [])
        judged = [(judge(seen, color, a, seed)[1], a) for a in options]
        worst = max(judged, default=(0, None), key=lambda x: x[0])
        return worst[1] if worst[0] >= 3 else None
    return plant


@pytest.mark.parametrize("kind", ["pass", "overbid", "elsewhere"])
def test_the_review_marks_a_planted_mistake_first(kind):
    """A player who plays as the Pi would, but for one decision that plainly gives points away: that decision is the
    first one marked, its better move the Pi's, its cost the whole seat's loss."""
    for seed in range(6):
        setup, actions, planted = played(["greedy", "greedy"], "family", seed, person="red", plant=costly(kind))
        if planted:
            break
    assert planted, f"no game with a costly {kind}"
    index, blunder = planted
    seat = review_game(setup, actions, ["red"], "g")["red"]
    first = seat["marked"][0]
    assert first["seq"] == index + 1 and first["cost"] >= 3
    assert first["action"] == ({"pass": True} if isinstance(blunder, Pass) else
                               {"bid": blunder.neighborhood, "value": blunder.value})
    assert first["better"] != first["action"]
    assert seat["lost"] == first["cost"]            # every other decision was the Pi's own choice


def test_the_review_never_peeks_and_is_the_same_from_the_same_record_and_seed():
    """Blue's review from the same record with red's and white's secret cards exchanged is the same: it decides
    from what blue knew (its own cards, the board, the call), never from another seat's cards."""
    setup, actions, _ = played(["greedy", "greedy", "greedy"], "family", 4)
    seats = list(setup.seats)
    swapped = [seats[0], replace(seats[1], area=seats[2].area, neighborhood=seats[2].neighborhood),
               replace(seats[2], area=seats[1].area, neighborhood=seats[1].neighborhood)]
    other = replace(setup, seats=tuple(swapped))
    mine = review_game(setup, actions, ["blue"], "g")
    assert mine == review_game(other, actions, ["blue"], "g")
    assert mine["blue"]["decisions"] > 10
    # and the review's marks are legal moves other than the one played, each costing something
    state = new_game(setup)
    marks = {m["seq"]: m for m in mine["blue"]["marked"]}
    for i, action in enumerate(actions):
        if i + 1 in marks:
            m = marks[i + 1]
            better = Pass("blue") if m["better"].get("pass") else Bid("blue", m["better"]["bid"], m["better"]["value"])
            assert better in legal_actions(state) and better != action and m["cost"] > 0
        state = apply(state, action)


def test_per_decision_a_random_seat_loses_more_than_greedy_and_greedy_more_than_strong():
    """Over a tournament game (random, greedy and strong seats), at every other decision taken, what each level's
    choice would have given up there: the same positions for every level, so a level is not judged by the positions
    its own play leads to (by seat, greedy's own positions cost it about as much as random's; docs/PLAYERS.md)."""
    setup, actions, _ = played(["random", "greedy", "strong"], "family", 300)
    lost = dict.fromkeys(("random", "greedy", "strong"), 0.0)
    state, count = new_game(setup), 0
    for i, action in enumerate(actions):
        if is_decision(state) and i % 2 == 0:
            color, count = state.to_act_color, count + 1
            seen = hide(state, color)
            for level in lost:
                choice = players.play(seen, color, level, random.Random(f"{level}/{i}"))
                lost[level] += judge(seen, color, choice, seed_of("t", i))[1]
        state = apply(state, action)
    assert count >= 30
    assert lost["random"] > lost["greedy"] > lost["strong"], lost


def test_a_hint_is_legal_and_the_same_whatever_the_other_seats_hold():
    setup, actions, _ = played(["greedy", "greedy", "greedy"], "expert", 9)
    state = new_game(setup)
    seats = list(setup.seats)
    other = replace(setup, seats=(seats[0], replace(seats[1], area=seats[2].area, neighborhood=seats[2].neighborhood),
                                  replace(seats[2], area=seats[1].area, neighborhood=seats[1].neighborhood)))
    asked = 0
    for i, action in enumerate(actions[:40]):
        if state.to_act_color == "blue" and is_decision(state):
            mine = advice(hide(state, "blue"), "blue", f"h{i}")
            twin = replace(state, setup=other)
            assert mine == advice(hide(twin, "blue"), "blue", f"h{i}")
            assert mine[0] in legal_actions(state) and mine[1] >= 0
            asked += 1
        state = apply(state, action)
    assert asked >= 5
