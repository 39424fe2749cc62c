"""What one seat may know: the state with the others' secret cards hidden, and the cards still unseen."""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from companion.game.setup import area_deck
from companion.game.state import NEIGHBORHOOD_CARDS, Seat, State


def hide(state: State, color: str) -> State:
    """`state` as `color`'s seat sees it: every other seat's area and neighborhood cards set to None."""
    seats = tuple(s if s.color == color else Seat(s.color, s.name, None, None) for s in state.setup.seats)
    return replace(state, setup=replace(state.setup, seats=seats))


def unseen_cards(seen: State, color: str) -> tuple[tuple[str, ...], tuple[Optional[str], ...]]:
    """The area and neighborhood cards `color` has not seen: the others' hands come from these (setup.deal's decks)."""
    mode, n = seen.setup.mode, len(seen.setup.seats)
    mine = seen.setup.seats[seen.seat(color)]
    areas = tuple(a for a in area_deck(mode, n) if a != mine.area)
    kinds = tuple(k for k in NEIGHBORHOOD_CARDS if k != mine.neighborhood) if mode == "expert" else (None,)
    return areas, kinds
