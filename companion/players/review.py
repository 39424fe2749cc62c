"""The Pi's review of a person's decisions and its hints: what strong would do from that seat's view, and what
the person's choice gave up, in points as strong's search estimates them. Pure: fed what the seat saw, never more.
"""
from __future__ import annotations

import random
from typing import Iterable, Optional

from companion.game.rules import apply, legal_actions, new_game
from companion.game.state import Action, Pass, Setup, State

from .seen import hide

MARKED = 3        # decisions shown a seat: its costliest
NOISE = 0.5       # a cost under half a point is the search's own uncertainty, never marked


def judge(seen: State, color: str, action: Action, seed: str) -> tuple[Action, float]:
    """strong's choice from `seen` and what `action` gave up against it (0.0 when it is strong's choice)."""
    from .appraise import appraise   # the search loads in the Pi's process only (players/__init__.py says why)
    values = appraise(seen, color, random.Random(seed), include=(action,))
    legal = legal_actions(seen)
    best = max((a for a in values if a in legal), key=lambda a: values[a])
    return best, max(0.0, values[best] - values[action])


def advice(seen: State, color: str, seed: str) -> tuple[Action, float, Optional[Action]]:
    """A hint: strong's choice, how far ahead of the next-best decision it is, and that decision."""
    from .appraise import appraise
    values = appraise(seen, color, random.Random(seed))
    legal = legal_actions(seen)
    ranked = sorted((a for a in values if a in legal), key=lambda a: -values[a])
    if not ranked:
        ranked = list(legal)[:1]
        return ranked[0], 0.0, None
    second = ranked[1] if len(ranked) > 1 else None
    return ranked[0], (values[ranked[0]] - values[second]) if second else 0.0, second


def is_decision(state: State) -> bool:
    """A seat decides only when it had more than one legal choice."""
    return len(legal_actions(state)) > 1


def seed_of(seed: str, index: int) -> str:
    return f"{seed}/review/{index}"


def action_json(action: Action) -> dict:
    return {"pass": True} if isinstance(action, Pass) else {"bid": action.neighborhood, "value": action.value}


def summary(judged: Iterable[tuple], people: Iterable[str]) -> dict:
    """`judged`: (index, color, action, best, cost, call, bids) per decision -> the review's seats, as the API sends
    them; `bids`: the call's standing bids then, so a phone shows the board as it was."""
    seats = {c: {"decisions": 0, "lost": 0.0, "marked": []} for c in people}
    costly: dict = {c: [] for c in seats}
    for index, color, action, best, cost, call, bids in judged:
        if color not in seats:
            continue
        seats[color]["decisions"] += 1
        seats[color]["lost"] += cost
        if cost >= NOISE and best != action:
            costly[color].append((-round(cost, 1), index, action, best, call, bids))
    for c, seat in seats.items():
        seat["lost"] = round(seat["lost"], 1)
        seat["marked"] = [{"seq": index + 1, "call": call, "action": action_json(action),
                           "better": action_json(best), "cost": -neg,
                           "bids": [{"color": b.player, "neighborhood": b.neighborhood, "value": b.value} for b in bids]}
                          for neg, index, action, best, call, bids in sorted(costly[c], key=lambda r: r[:2])[:MARKED]]
    return seats


def review_game(setup: Setup, actions: list, people: Iterable[str], seed: str) -> dict:
    """The whole review of a played game, decision by decision, as the Pi works it out while the game goes."""
    people = list(people)
    state = new_game(setup)
    judged = []
    for index, action in enumerate(actions):
        if action.player in people and is_decision(state):
            best, cost = judge(hide(state, action.player), action.player, action, seed_of(seed, index))
            judged.append((index, action.player, action, best, cost, len(state.built) + 1, state.call))
        state = apply(state, action)
    return summary(judged, people)

