"""`appraise`: the value strong gives each decision it weighs from one seat's view (a placeholder on today's search).

Its argmax is strong's move; `include` adds decisions strong would not have looked at (a person's own choice).
"""
from __future__ import annotations

import random

from companion.game import load_board
from companion.game.rules import legal_actions
from companion.game.state import Action, Pass, State

# A placeholder on today's search until the rewrite's own appraise replaces this file: it reads search's insides.
from . import search as today


def appraise(seen: State, color: str, rng: random.Random, include=()) -> dict[Action, float]:
    """Each decision weighed -> its mean utility over strong's worlds, in game points (own minus the best other's)."""
    board = load_board()
    legal = legal_actions(seen, board)
    me = seen.seat(color)
    table = today._Table(seen, board)
    style = today.STRONG
    worlds = [today._World(table, today._guess_cards(seen, me, table, rng), style) for _ in range(style.worlds)]
    actions = today._root_actions(seen, me, table, worlds[0], today.STRONG)
    actions += [a for a in include if a not in actions]
    if len(legal) == 1:
        actions = list(dict.fromkeys(list(legal) + actions))
    taken0 = frozenset(b.neighborhood for b in seen.call)
    totals = [0.0] * len(actions)
    for world in worlds:
        search = today._Search(world, today.STRONG)
        for a, action in enumerate(actions):
            search.left = max(today.STRONG.nodes // len(actions), 4)
            hands = list(seen.hands)
            if isinstance(action, Pass):
                if not seen.call:
                    continue
                last = seen.call[-1]
                vals = search.after(hands, taken0, seen.passed | {me},
                                    (seen.seat(last.player), last.neighborhood, last.value), me, today.STRONG.depth)
            else:
                hands[me] = tuple(x for x in hands[me] if x != action.value)
                vals = search.after(hands, taken0 | {action.neighborhood}, seen.passed,
                                    (me, action.neighborhood, action.value), me, today.STRONG.depth)
            totals[a] += search.utility(vals, me)
    return {action: totals[a] / len(worlds) for a, action in enumerate(actions)}
