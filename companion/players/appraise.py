"""What each decision is worth to `strong`, in game points, for the post-game review and hints.

`appraise(seen, color, rng)` returns, for every action `strong` weighs from this seat's view (and every action in
`include`), its estimated value: the expected final margin, this seat's score less the best other seat's. Its
argmax is the action `strong` plays from the same position with the same seed. Pure like the players: it reads
only `seen` (the others' cards hidden) and the random generator.
"""
from __future__ import annotations

import random
from typing import Iterable

from companion.game import State, legal_actions
from companion.game.state import Action

from . import montecarlo


def appraise(seen: State, color: str, rng: random.Random, include: Iterable[Action] = ()) -> dict[Action, float]:
    """{action: estimated final margin in points} for strong's candidates and every action of `include`."""
    if seen.to_act_color != color:
        raise ValueError(f"{color} is not to act")
    include = tuple(include)
    legal = legal_actions(seen)
    for a in include:
        if a not in legal:
            raise ValueError(f"{a!r} is not legal here")
    if len(legal) == 1 and not include:
        return {next(iter(legal)): 0.0}                # strong plays it without a search
    return montecarlo.weigh_strong(seen, color, rng, montecarlo.strong_budget(seen, montecarlo.REVIEW), include=include)
