"""Before the first bid: checking a table's setup, dealing secret cards, laying tokens (seeded)."""
from __future__ import annotations

import random
from types import MappingProxyType
from typing import Iterable, Mapping, Optional, Sequence

from .board import CENTER, PERIPHERAL, TOKEN_KINDS, Board, load_board
from .errors import RuleError
from .state import COLORS, EXPERT_AREAS, FAMILY_AREAS, MODES, NEIGHBORHOOD_CARDS, Seat, Setup


def area_deck(mode: str, players: int) -> tuple[str, ...]:
    """The area cards shuffled for this game: the Family Borders card is left out with 2 players."""
    if mode == "family":
        return tuple(c for c in FAMILY_AREAS if not (players == 2 and c == "borders"))
    return EXPERT_AREAS


def check_mode(mode) -> str:
    if mode not in MODES:
        raise RuleError("bad_mode", mode=mode)
    return mode


def check_colors(colors: Sequence[str]) -> tuple[str, ...]:
    """2 to 4 players, each a different colour of the box."""
    if not 2 <= len(colors) <= 4:
        raise RuleError("player_count", count=len(colors))
    seen = set()
    for c in colors:
        if c not in COLORS:
            raise RuleError("bad_color", color=c)
        if c in seen:
            raise RuleError("duplicate_color", color=c)
        seen.add(c)
    return tuple(colors)


def check_removed(players: int, removed: Iterable[str], board: Optional[Board] = None) -> frozenset[str]:
    """3 players: any one peripheral district out; 2 players: two adjacent ones."""
    board = board or load_board()
    removed = list(removed)
    for d in removed:
        if d not in PERIPHERAL:
            raise RuleError("bad_district", district=d)
    need = 4 - players
    if len(removed) != need:
        raise RuleError("removed_count", count=players, need=need, got=len(removed))
    if len(set(removed)) != len(removed):
        raise RuleError("removed_twice", district=removed[0])
    if need == 2 and frozenset(removed) not in board.district_pairs:
        a, b = sorted(removed, key=PERIPHERAL.index)
        raise RuleError("removed_not_adjacent", a=a, b=b)
    return frozenset(removed)


def check_cards(mode: str, seats: Sequence[Seat]) -> None:
    """Each card from the right deck, and none dealt twice."""
    deck = area_deck(mode, len(seats))
    seen: set[str] = set()
    for s in seats:
        if s.area is None:
            raise RuleError("missing_area", color=s.color)
        if s.area not in deck:
            if mode == "family" and s.area == "borders":
                raise RuleError("no_borders_2p", color=s.color)
            raise RuleError("bad_area", color=s.color, card=s.area, mode=mode, cards=", ".join(deck))
        if mode == "family":
            if s.neighborhood is not None:
                raise RuleError("family_neighborhood_card", color=s.color)
        elif s.neighborhood is None:
            raise RuleError("missing_neighborhood_card", color=s.color)
        elif s.neighborhood not in NEIGHBORHOOD_CARDS:
            raise RuleError("bad_neighborhood_card", color=s.color, card=s.neighborhood,
                            cards=", ".join(NEIGHBORHOOD_CARDS))
        for card in (s.area, s.neighborhood):
            if card is None:
                continue
            if card in seen:
                raise RuleError("duplicate_card", card=card)
            seen.add(card)


def check_layout(players: int, removed: frozenset[str], tokens: Mapping[str, str],
                 board: Optional[Board] = None) -> Mapping[str, str]:
    """A token layout as the rulebook sets it: counts per kind, 7 in the center, 5 per district in play."""
    board = board or load_board()
    per_district: dict[str, int] = {}
    per_kind = {k: 0 for k in TOKEN_KINDS}
    for nb, kind in tokens.items():
        hood = board.neighborhoods.get(nb)
        if hood is None:
            raise RuleError("token_unknown_neighborhood", neighborhood=nb)
        if kind not in per_kind:
            raise RuleError("token_bad_kind", neighborhood=nb, kind=kind)
        if hood.blind_alley:
            raise RuleError("token_blind_alley", neighborhood=nb)
        if hood.district in removed:
            raise RuleError("token_removed_district", neighborhood=nb, district=hood.district)
        per_kind[kind] += 1
        per_district[hood.district] = per_district.get(hood.district, 0) + 1
    for kind in TOKEN_KINDS:
        need = board.token_counts[players][kind]
        if per_kind[kind] != need:
            raise RuleError("token_kind_count", count=players, need=need, kind=kind, got=per_kind[kind])
    for district in (CENTER,) + PERIPHERAL:
        if district in removed:
            continue
        need = board.random_setup_tokens[district]
        if per_district.get(district, 0) != need:
            raise RuleError("token_district_count", district=district, need=need, got=per_district.get(district, 0))
    return MappingProxyType(dict(tokens))


def check_saved_layout(tokens: Mapping[str, str], board: Optional[Board] = None) -> tuple[int, frozenset[str]]:
    """A layout saved for reuse, checked as strictly as a game's; returns the player count and districts out it is for.

    A saved layout is for the table whose districts it leaves empty: those peripheral districts are out
    of play, and the player count is 4 minus their number (the rulebook removes one district for 3
    players and two adjacent ones for 2)."""
    board = board or load_board()
    for nb in tokens:
        if nb not in board.neighborhoods:
            raise RuleError("token_unknown_neighborhood", neighborhood=nb)
    used = {board.neighborhoods[nb].district for nb in tokens}
    empty = [d for d in PERIPHERAL if d not in used]
    if len(empty) > 2:
        d = empty[2]
        raise RuleError("token_district_count", district=d, need=board.random_setup_tokens[d], got=0)
    players = 4 - len(empty)
    removed = check_removed(players, empty, board)
    check_layout(players, removed, tokens, board)
    return players, removed


def make_setup(mode: str, seats: Sequence[Seat], removed: Iterable[str], tokens: Mapping[str, str],
               board: Optional[Board] = None) -> Setup:
    """A checked setup; raises RuleError with the first thing wrong."""
    board = board or load_board()
    check_mode(mode)
    check_colors([s.color for s in seats])
    removed = check_removed(len(seats), removed, board)
    check_cards(mode, seats)
    tokens = check_layout(len(seats), removed, tokens, board)
    return Setup(mode=mode, seats=tuple(seats), removed_districts=removed, tokens=tokens)


def deal(mode: str, players: int, rng: random.Random) -> list[tuple[str, Optional[str]]]:
    """Secret cards per seat: one area card each (Expert: and one neighborhood card); the rest stay unseen."""
    areas = list(area_deck(mode, players))
    rng.shuffle(areas)
    if mode == "family":
        return [(areas[i], None) for i in range(players)]
    kinds = list(NEIGHBORHOOD_CARDS)
    rng.shuffle(kinds)
    return [(areas[i], kinds[i]) for i in range(players)]


def random_layout(players: int, removed: frozenset[str], rng: random.Random,
                  board: Optional[Board] = None) -> dict[str, str]:
    """Tokens shuffled face down, 7 to the center and 5 to each district in play, never in a blind alley."""
    board = board or load_board()
    counts = board.token_counts[players]
    bag = [kind for kind in TOKEN_KINDS for _ in range(counts[kind])]
    rng.shuffle(bag)
    layout = {}
    for district in (CENTER,) + PERIPHERAL:
        if district in removed:
            continue
        spots = [nb for nb in board.districts[district] if board.neighborhoods[nb].token_eligible]
        for nb in rng.sample(spots, board.random_setup_tokens[district]):
            layout[nb] = bag.pop()
    return layout
