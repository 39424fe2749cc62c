"""A board finished without the app, typed in piece by piece, checked, then scored by scoring.explain.

Nothing here scores: it turns what a table sees on its finished board into the final State the rules
core scores, and refuses (RuleError, a sentence) what no real game can leave on the board.

Heights, not values: "the player who has constructed the highest building (in terms of height, not
value) takes a highest building token [...] In case of tie, the size of their second highest buildings
(or, if necessary, of their third highest buildings, and so on) decides" (rulebook, Expert, End of the
game). So a building is entered by its colour and, in Expert, its height class (small 1-5, medium 6-9,
tall 10-13); its number is never needed, and a tie the heights cannot settle is shared by the rule itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Mapping, Optional

from .board import TOKEN_KINDS, Board, load_board
from .errors import RuleError
from .scoring import explain
from .setup import check_cards, check_colors, check_mode, check_removed
from .state import VALUES, Building, Seat, Setup, State

HEIGHTS = ("small", "medium", "tall")
# "Each player has 5 small buildings (1 to 5), 4 medium buildings (6 to 9) and 4 tall buildings (10 to 13)."
HEIGHT_VALUES = {"small": (1, 2, 3, 4, 5), "medium": (6, 7, 8, 9), "tall": (10, 11, 12, 13)}
CARDS = ("subway", "archaeological")
NO_TOKENS = (0, 0, 0)


@dataclass(frozen=True)
class FinishedBoard:
    """What a table reads off its board at the end: buildings, tokens, the two cards, the secret cards."""

    mode: str
    seats: tuple[Seat, ...]                                  # seating order; cards None until entered
    removed: frozenset[str] = frozenset()
    buildings: Mapping[str, tuple[str, Optional[str]]] = field(default_factory=dict)  # nb -> (colour, height)
    tokens: Mapping[str, tuple[int, int, int]] = field(default_factory=dict)      # colour -> trendy, subway, arch.
    subway_card: Optional[str] = None
    archaeological_card: Optional[str] = None

    @property
    def colors(self) -> tuple[str, ...]:
        return tuple(s.color for s in self.seats)

    def held(self, color: str) -> tuple[int, int, int]:
        return tuple(self.tokens.get(color, NO_TOKENS))

    def built_by(self, color: str) -> list[str]:
        return sorted(nb for nb, (c, _) in self.buildings.items() if c == color)


def new_board(mode: str, seats: list[Seat] | tuple, removed=(), board: Optional[Board] = None) -> FinishedBoard:
    """An empty board for this table: the mode, the colours in seating order and the districts out are checked."""
    board = board or load_board()
    check_mode(mode)
    check_colors([s.color for s in seats])
    removed = check_removed(len(seats), removed, board)
    return FinishedBoard(mode=mode, seats=tuple(Seat(s.color, s.name) for s in seats), removed=removed)


def _player(fb: FinishedBoard, color) -> str:
    if color not in fb.colors:
        raise RuleError("unknown_player", player=color)
    return color


def place(fb: FinishedBoard, nb: str, color: Optional[str], height: Optional[str] = None,
          board: Optional[Board] = None) -> FinishedBoard:
    """A building entered (or taken off with color None) in one neighborhood."""
    board = board or load_board()
    hood = board.neighborhoods.get(nb) if isinstance(nb, str) else None
    if hood is None:
        raise RuleError("board_unknown_neighborhood", neighborhood=nb)
    buildings = dict(fb.buildings)
    if color is None:
        buildings.pop(nb, None)
        return replace(fb, buildings=MappingProxyType(buildings))
    _player(fb, color)
    if hood.district in fb.removed:
        raise RuleError("board_district_removed", neighborhood=nb, district=hood.district)
    if fb.mode == "expert":
        if height not in HEIGHTS:
            raise RuleError("board_height_missing", neighborhood=nb)
    else:
        height = None   # the Family game scores no heights: whatever was sent is not kept
    buildings[nb] = (color, height)
    mine = [h for c, h in buildings.values() if c == color]
    if len(mine) > len(VALUES):
        raise RuleError("board_too_many", color=color, count=len(mine))
    if height is not None:
        have = len(HEIGHT_VALUES[height])
        got = mine.count(height)
        if got > have:
            raise RuleError("board_too_many_height", color=color, height=height, count=got, have=have)
    return replace(fb, buildings=MappingProxyType(buildings))


def set_tokens(fb: FinishedBoard, color: str, counts, board: Optional[Board] = None) -> FinishedBoard:
    """One player's trendy, subway and archaeological tokens, never more of a kind than the setup lays."""
    board = board or load_board()
    _player(fb, color)
    if (not isinstance(counts, (list, tuple)) or len(counts) != 3
            or any(type(n) is not int or n < 0 for n in counts)):
        raise RuleError("board_bad_tokens", color=color)
    tokens = dict(fb.tokens, **{color: tuple(counts)})
    laid = board.token_counts[len(fb.seats)]
    for k, kind in enumerate(TOKEN_KINDS):
        got = sum(t[k] for t in tokens.values())
        if got > laid[kind]:
            raise RuleError("token_kind_count", count=len(fb.seats), need=laid[kind], kind=kind, got=got)
    return replace(fb, tokens=MappingProxyType(tokens))


def hold(fb: FinishedBoard, card: str, color: Optional[str]) -> FinishedBoard:
    """Who holds the subway card or the archaeological site card (None: nobody), checked against the tokens."""
    if card not in CARDS:
        raise RuleError("board_bad_card", card=card)
    if color is not None:
        _player(fb, color)
        _check_holder(fb, card, color)
    return replace(fb, **{card + "_card": color})


def _check_holder(fb: FinishedBoard, card: str, color: str) -> None:
    k = TOKEN_KINDS.index(card)
    mine = fb.held(color)[k]
    if mine == 0:
        raise RuleError("board_card_no_token", color=color, card=card)
    if card == "subway":
        # "The player who owns the most subway tokens takes the subway card" (it moves on a strict majority only).
        for other in fb.colors:
            if fb.held(other)[k] > mine:
                raise RuleError("board_subway_fewer", color=color, other=other, got=mine,
                                other_got=fb.held(other)[k])


def reveal(fb: FinishedBoard, color: str, area: str, neighborhood: Optional[str]) -> FinishedBoard:
    """One player's secret cards, checked against the game's decks only (never against another's cards)."""
    _player(fb, color)
    if fb.mode == "family" and len(fb.seats) == 2 and area == "borders":
        raise RuleError("no_borders_2p", color=color)
    check_cards(fb.mode, [Seat(color, "", area, neighborhood)])
    seats = tuple(Seat(s.color, s.name, area, neighborhood) if s.color == color else s for s in fb.seats)
    return replace(fb, seats=seats)


def check_unique(fb: FinishedBoard, color: str, area: str, neighborhood: Optional[str]) -> None:
    """A card about to be entered for `color` that another colour's entry holds already: the entry to check, said.

    The deck holds each card once. Asked at entry (not in reveal(), which replays logs that hold such pairs)."""
    for s in fb.seats:
        if s.color == color:
            continue
        if area is not None and s.area == area:
            raise RuleError("board_area_twice", color=color, card=area, other=s.color)
        if neighborhood is not None and s.neighborhood == neighborhood:
            raise RuleError("board_neighborhood_twice", color=color, card=neighborhood, other=s.color)


def check_complete(fb: FinishedBoard, board: Optional[Board] = None) -> None:
    """Everything a finished board must hold before its tally; the first thing wrong, as a sentence."""
    board = board or load_board()
    counts = {c: len(fb.built_by(c)) for c in fb.colors}
    full = [c for c in fb.colors if counts[c] == len(VALUES)]
    # "The game ends as soon as any player has built his last building."
    if not full:
        raise RuleError("board_not_finished")
    if len(full) > 1:
        raise RuleError("board_two_finished", color=full[0], other=full[1])
    for color in fb.colors:
        # Tokens lie only outside blind alleys, one to a neighborhood, taken by the building put there.
        room = sum(1 for nb in fb.built_by(color) if board.neighborhoods[nb].token_eligible)
        got = sum(fb.held(color))
        if got > room:
            raise RuleError("board_tokens_buildings", color=color, count=got, room=room)
    for card in CARDS:
        holder = getattr(fb, card + "_card")
        kind = TOKEN_KINDS.index(card)
        takers = [c for c in fb.colors if fb.held(c)[kind]]
        if holder is None:
            if takers:
                raise RuleError("board_card_nobody", card=card, color=takers[0])
        else:
            _check_holder(fb, card, holder)
    for s in fb.seats:
        if s.area is None or (fb.mode == "expert" and s.neighborhood is None):
            raise RuleError("board_cards_missing", color=s.color)
    check_cards(fb.mode, list(fb.seats))   # a card entered twice is named only now, when all are revealed


def to_state(fb: FinishedBoard) -> State:
    """The final State the rules core scores: heights stand for values (the lowest free value of the class)."""
    colors = fb.colors
    seat_of = {c: i for i, c in enumerate(colors)}
    free = {c: {h: list(v) for h, v in HEIGHT_VALUES.items()} for c in colors}
    family_free = {c: list(VALUES) for c in colors}
    built = {}
    for nb in sorted(fb.buildings):
        color, height = fb.buildings[nb]
        value = free[color][height].pop(0) if height else family_free[color].pop(0)
        if height:
            family_free[color].remove(value)
        built[nb] = Building(color, nb, value)
    counts = tuple(sum(1 for b in built.values() if b.player == c) for c in colors)
    used = {c: {b.value for b in built.values() if b.player == c} for c in colors}
    setup = Setup(mode=fb.mode, seats=fb.seats, removed_districts=frozenset(fb.removed),
                  tokens=MappingProxyType({}))
    return State(
        setup=setup,
        hands=tuple(tuple(v for v in VALUES if v not in used[c]) for c in colors),
        built=MappingProxyType(built),
        built_count=counts,
        tokens=MappingProxyType({}),
        collected=tuple(fb.held(c) for c in colors),
        subway_card=None if fb.subway_card is None else seat_of[fb.subway_card],
        archaeological_card=None if fb.archaeological_card is None else seat_of[fb.archaeological_card],
        start=0,
        to_act=None,
        finished=True,
        _seat=MappingProxyType(seat_of),
    )


def tally(fb: FinishedBoard, board: Optional[Board] = None) -> dict:
    """The end screen's tally (scoring.explain) of a complete board; RuleError when it cannot be a finished game."""
    board = board or load_board()
    check_complete(fb, board)
    return explain(to_state(fb), board)


__all__ = ["FinishedBoard", "HEIGHTS", "HEIGHT_VALUES", "new_board", "place", "set_tokens", "hold", "reveal",
           "check_unique", "check_complete", "to_state", "tally"]
