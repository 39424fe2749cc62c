"""The final tally (or the one 'if it ended now'), as RECORD.md prints it, with the reasons behind it."""
from __future__ import annotations

from itertools import combinations
from typing import Callable, Iterable, Optional

from .board import Board, load_board
from .state import State


def max_disjoint(groups: Iterable[frozenset]) -> int:
    """The largest number of pairwise-disjoint groups: each building serves one objective at most."""
    return len(disjoint_groups(groups))


def disjoint_groups(groups: Iterable[frozenset]) -> list[frozenset]:
    """One largest set of pairwise-disjoint groups (as many as max_disjoint counts): what the tally names."""
    groups = list(dict.fromkeys(groups))
    items = sorted({x for g in groups for x in g})
    bit = {x: 1 << i for i, x in enumerate(items)}
    by_mask = {sum(bit[x] for x in g): g for g in groups}
    masks = sorted(by_mask)
    pack = packer(masks)
    chosen, free = [], (1 << len(items)) - 1
    while pack(free):
        fitting = [m for m in masks if m & free == m]
        union = 0
        for m in fitting:
            union |= m
        low = union & -union
        pick = next((m for m in fitting if m & low and 1 + pack(free & ~m) == pack(free)), None)
        if pick is None:
            free &= ~low          # the best packing leaves this element out
        else:
            chosen.append(by_mask[pick])
            free &= ~pick
    return chosen


def packer(masks: list[int]) -> Callable[[int], int]:
    """pack(free): the most pairwise-disjoint of `masks` (groups as bitmasks) within the bits `free`, remembered
    by `free`. Also the playouts' count at a game's end (players/groups.py), on their own bits."""
    memo: dict[int, int] = {}

    def pack(free: int) -> int:
        if free not in memo:
            fitting = [m for m in masks if m & free == m]
            best = 0
            if fitting:
                union = 0
                for m in fitting:
                    union |= m
                low = union & -union  # every packing either uses this element or leaves it out
                best = pack(free & ~low)
                for m in fitting:
                    if m & low:
                        best = max(best, 1 + pack(free & ~m))
            memo[free] = best
        return memo[free]

    return pack


def area_group_list(board: Board, card: str, mine: set[str]) -> list[list[str]]:
    """Expert area card: the buildings of each group that scored (the same count as area_groups)."""
    if card == "bridges":
        groups = disjoint_groups(frozenset(e) for e in board.bridges if e[0] in mine and e[1] in mine)
    elif card == "statues":
        groups = disjoint_groups(frozenset(s.neighborhoods) for s in board.statues if set(s.neighborhoods) <= mine)
    elif card == "lakes":
        groups = disjoint_groups(frozenset(trio) | {lake.id} for lake in board.lakes
                                 for trio in combinations(sorted(mine.intersection(lake.neighborhoods)), 3))
    elif card == "districts":
        groups = [frozenset(mine.intersection(nbs)) for nbs in board.districts.values() if len(mine.intersection(nbs)) >= 3]
    elif card == "chains":
        groups = disjoint_groups(_chains(board, mine))
    else:
        raise ValueError(card)
    return sorted(sorted(g & mine) for g in groups)


def _lake_groups(lakes, mine: set[str]) -> int:
    """Most lakes that each get three of the player's buildings; the lake's own id keeps it to one group."""
    return max_disjoint(
        frozenset(trio) | {lake.id}
        for lake in lakes
        for trio in combinations(sorted(mine.intersection(lake.neighborhoods)), 3)
    )


def _chains(board: Board, mine: set[str]) -> list[frozenset]:
    """Every connected set of three of the player's buildings (a path or a triangle)."""
    found = set()
    for mid in mine:
        around = sorted(board.neighborhoods[mid].neighbors & mine)
        for a, b in combinations(around, 2):
            found.add(frozenset((a, mid, b)))
    return list(found)


def area_groups(board: Board, card: str, mine: set[str]) -> int:
    """Expert area card: the maximum number of disjoint groups the player's buildings form."""
    if card == "bridges":
        return max_disjoint(frozenset(e) for e in board.bridges if e[0] in mine and e[1] in mine)
    if card == "statues":
        return max_disjoint(frozenset(s.neighborhoods) for s in board.statues if set(s.neighborhoods) <= mine)
    if card == "lakes":
        return _lake_groups(board.lakes, mine)
    if card == "districts":
        return sum(1 for nbs in board.districts.values() if len(mine.intersection(nbs)) >= 3)
    if card == "chains":
        return max_disjoint(_chains(board, mine))
    raise ValueError(card)


def family_touch(board: Board, card: str) -> frozenset[str]:
    """Family area card: the neighborhoods next to its feature (a bridge, a statue, a lake, the city border)."""
    if card == "bridges":
        return frozenset(n for e in board.bridges for n in e)
    if card == "statues":
        return frozenset(n for s in board.statues for n in s.neighborhoods)
    if card == "lakes":
        return frozenset(n for l in board.lakes for n in l.neighborhoods)
    if card == "borders":
        return frozenset(n.id for n in board.neighborhoods.values() if n.on_city_border)
    raise ValueError(card)


def family_area_hits(board: Board, card: str, mine: set[str]) -> list[str]:
    """Family area card: the player's buildings next to the card's feature, each counted once."""
    return sorted(mine & family_touch(board, card))


def highest(board: Board, state: State) -> dict[str, list[str]]:
    """District -> the colours holding its highest building by size class, with the full tie-break."""
    out = {}
    for district, nbs in board.districts.items():
        if district in state.setup.removed_districts:
            continue
        heights: dict[str, list[int]] = {}
        for nb in nbs:
            b = state.built.get(nb)
            if b:
                heights.setdefault(b.player, []).append(board.size_class(b.value))
        if not heights:
            continue
        # Sorted tallest first, compared in turn; a building where the other has none wins.
        keyed = {c: sorted(h, reverse=True) for c, h in heights.items()}
        top = max(keyed.values())
        out[district] = [c for c in state.setup.colors if keyed.get(c) == top]
    return out


def score(state: State, board: Optional[Board] = None) -> dict:
    """Scores exactly as `companion score` prints them (RECORD.md)."""
    return explain(state, board)["scores"]


def explain(state: State, board: Optional[Board] = None) -> dict:
    """Scores plus the facts behind each line, for the end-of-game breakdown on the pages."""
    board = board or load_board()
    k = board.scoring
    expert = state.setup.mode == "expert"
    tops = highest(board, state) if expert else {}
    players, details = {}, {}
    for i, seat in enumerate(state.setup.seats):
        mine = {nb for nb, b in state.built.items() if b.player == seat.color}
        trendy, subway, arch = state.collected[i]
        detail = {"buildings": sorted(mine)}
        if expert:
            # The groups named are one largest packing, so their count is the card's (area_groups): searched once.
            group_list = area_group_list(board, seat.area, mine) if seat.area else []
            groups = len(group_list)
            area = groups * k["expert_area_objectives"].get(seat.area, 0) if seat.area else 0
            kinds = sorted(nb for nb in mine if board.neighborhoods[nb].kind == seat.neighborhood)
            neighborhood = len(kinds) * k["expert_neighborhood_objective_per_building_of_kind"]
            won = sorted(d for d, cs in tops.items() if seat.color in cs)
            detail.update(area_groups=groups, neighborhood_buildings=kinds, highest_districts=won,
                          area_group_list=group_list)
            high = len(won) * k["expert_highest_building_per_district"]
        else:
            hits = family_area_hits(board, seat.area, mine) if seat.area else []
            area = 3 * len(hits)  # "3 prestige points for each building ... next to the type of area"
            detail.update(area_buildings=hits)
            neighborhood = high = 0
        breakdown = {
            "trendy": trendy * k["trendy_token"],
            "subway": subway * k["subway_token"],
            "subway_card": k["subway_card_most_subway_tokens"] if state.subway_card == i else 0,
            "archaeological": arch * k["archaeological_token"],
            "archaeological_card": k["archaeological_card_last_taken"] if state.archaeological_card == i else 0,
            "area": area,
            "neighborhood": neighborhood,
            "highest": high,
        }
        players[seat.color] = {"total": sum(breakdown.values()), "buildings": state.built_count[i],
                               "breakdown": breakdown}
        details[seat.color] = detail
    winners, tiebreak = _winners(state, players)
    return {
        "scores": {"finished": state.finished, "winners": winners, "players": players},
        "details": details,
        "highest": tops,
        "tiebreak": tiebreak,
    }


def _winners(state: State, players: dict) -> tuple[list[str], str]:
    """Most points; then most buildings; still tied, the victory is shared."""
    best = max(p["total"] for p in players.values())
    tied = [c for c in state.setup.colors if players[c]["total"] == best]
    if len(tied) == 1:
        return tied, "points"
    most = max(players[c]["buildings"] for c in tied)
    winners = [c for c in tied if players[c]["buildings"] == most]
    return winners, "buildings" if len(winners) == 1 else "shared"
