"""The printed board: the facts PROVENANCE.md checked, held by the loaded Board and the shipped JSON alike."""
from collections import Counter
from itertools import combinations
from pathlib import Path
import json

import pytest

from games import RAW

from companion.game.board import KINDS, PERIPHERAL, _parse, board_data

SHARED = Path("/work/shared/board/metropolys-board.json")


@pytest.fixture
def board():
    """The board parsed from its data by each test (a few milliseconds), not the one loaded once at import: a
    change to the parser (a mutation tool's) must show in every test that reads what it changed."""
    return _parse(board_data())


def test_shipped_board_is_the_shared_one():
    if SHARED.exists():
        assert json.loads(SHARED.read_text("utf-8")) == RAW


def test_55_neighborhoods_15_in_the_center_10_in_each_peripheral_district(board):
    NBS = board.neighborhoods
    assert len(NBS) == 55
    assert {d: len(n) for d, n in board.districts.items()} == {
        "center": 15, "north": 10, "east": 10, "south": 10, "west": 10}
    for d, ids in board.districts.items():
        assert all(NBS[i].district == d for i in ids)
    assert sorted(i for ids in board.districts.values() for i in ids) == sorted(NBS)


def test_kinds_11_each_3_per_kind_in_center_2_in_each_peripheral_district(board):
    NBS = board.neighborhoods
    assert Counter(n.kind for n in NBS.values()) == {k: 11 for k in KINDS}
    for d, ids in board.districts.items():
        assert Counter(NBS[i].kind for i in ids) == {k: 3 if d == "center" else 2 for k in KINDS}


def test_92_adjacencies_no_loops_no_duplicates_and_neighbors_symmetric(board):
    NBS = board.neighborhoods
    edges = {frozenset((e["a"], e["b"])) for e in RAW["adjacencies"]}
    assert len(RAW["adjacencies"]) == len(edges) == 92
    assert all(len(e) == 2 for e in edges)
    from_neighbors = {frozenset((a, b)) for a, n in NBS.items() for b in n.neighbors}
    assert from_neighbors == edges
    for a, n in NBS.items():
        for b in n.neighbors:
            assert a in NBS[b].neighbors, (a, b)


def test_21_bridges_exactly_the_edges_between_different_districts(board):
    NBS = board.neighborhoods
    assert len(board.bridges) == 21
    bridges = {frozenset(b) for b in board.bridges}
    between = {frozenset((e["a"], e["b"])) for e in RAW["adjacencies"] if NBS[e["a"]].district != NBS[e["b"]].district}
    assert bridges == between
    for a, b in board.bridges:
        assert b in NBS[a].bridges and a in NBS[b].bridges and b in NBS[a].neighbors
    assert sum(len(n.bridges) for n in NBS.values()) == 42


def test_bridges_per_district_pair_and_no_bridge_across_north_south_or_east_west(board):
    NBS = board.neighborhoods
    pairs = Counter(frozenset((NBS[a].district, NBS[b].district)) for a, b in board.bridges)
    assert pairs == {
        frozenset(("center", "north")): 3, frozenset(("center", "east")): 3,
        frozenset(("center", "south")): 3, frozenset(("center", "west")): 2,
        frozenset(("north", "east")): 2, frozenset(("east", "south")): 3,
        frozenset(("south", "west")): 3, frozenset(("west", "north")): 2,
    }
    assert board.district_pairs == {frozenset(p) for p in
                                    (("north", "east"), ("east", "south"), ("south", "west"), ("west", "north"))}


def test_graph_is_connected(board):
    NBS = board.neighborhoods
    seen, todo = set(), ["C01"]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(NBS[n].neighbors)
    assert seen == set(NBS)


def test_blind_alleys_are_exactly_the_degree_1_neighborhoods_and_get_no_token(board):
    NBS = board.neighborhoods
    blind = {i for i, n in NBS.items() if n.blind_alley}
    assert blind == {i for i, n in NBS.items() if len(n.neighbors) == 1} == {"C12", "N07", "E04", "S01"}
    assert set(RAW["blind_alleys"]) == blind
    assert all(not NBS[i].token_eligible for i in blind)


def test_51_token_eligible_spots_14_9_9_9_10(board):
    NBS = board.neighborhoods
    eligible = [n for n in NBS.values() if n.token_eligible]
    assert len(eligible) == 51
    assert Counter(n.district for n in eligible) == {"center": 14, "north": 9, "east": 9, "south": 9, "west": 10}
    assert all(n.token_eligible == (not n.blind_alley) for n in NBS.values())


def test_11_statues_each_with_3_pairwise_adjacent_neighborhoods(board):
    NBS = board.neighborhoods
    assert len(board.statues) == 11
    for s in board.statues:
        assert len(set(s.neighborhoods)) == 3
        for a, b in combinations(s.neighborhoods, 2):
            assert b in NBS[a].neighbors, (s.id, a, b)


def test_6_lakes_with_known_neighborhoods_and_ids_unlike_neighborhood_ids(board):
    NBS = board.neighborhoods
    assert len(board.lakes) == 6
    for lake in board.lakes:
        assert lake.id not in NBS
        assert set(lake.neighborhoods) <= set(NBS) and len(lake.neighborhoods) >= 4
    # "C08, C09, C10 border both centre lakes"
    upper, lower = (next(l for l in board.lakes if l.id == i) for i in ("lake-center-upper", "lake-center-lower"))
    assert set(upper.neighborhoods) & set(lower.neighborhoods) == {"C08", "C09", "C10"}
    # 34 pairs of shore neighborhoods with water between them (no street, no bridge): an outbid cannot cross
    assert len(board.across_water) == 34 and frozenset(("C08", "C10")) in board.across_water
    assert all(b not in NBS[a].neighbors for a, b in map(tuple, board.across_water))


def test_city_border_20_neighborhoods_none_in_the_center(board):
    NBS = board.neighborhoods
    border = [n for n in NBS.values() if n.on_city_border]
    assert len(border) == 20 and set(RAW["city_border"]["neighborhoods"]) == {n.id for n in border}
    assert Counter(n.district for n in border) == {"north": 4, "east": 5, "south": 5, "west": 6}


def test_token_table_per_player_count_fills_7_in_center_and_5_per_district_in_play(board):
    for players, (t, s, a) in {4: (9, 9, 9), 3: (8, 7, 7), 2: (5, 6, 6)}.items():
        assert dict(board.token_counts[players]) == {"trendy": t, "subway": s, "archaeological": a}
        assert t + s + a == 7 + 5 * {4: 4, 3: 3, 2: 2}[players]
    assert dict(board.random_setup_tokens) == {"center": 7, **{d: 5 for d in PERIPHERAL}}


def test_size_classes_small_1_5_medium_6_9_tall_10_13(board):
    assert [board.size_class(v) for v in range(1, 14)] == [0] * 5 + [1] * 4 + [2] * 4


def test_the_points_are_the_rulebooks(board):
    """End of the game: "For each "Trendy neighborhood" token ... 3 prestige points, ... each "Subway" token ... 1
    prestige point, The owner of the "Subway" card earns 3 ..., each "Archaeological site" token ... loses 1 ...,
    The owner of the "Archaeological site" card loses 2"; Expert: a highest building token "worth 5 prestige points",
    "2 prestige points" per building of the neighborhood card's kind, and the area cards' 4, 7, 5, 4, 4."""
    k = board.scoring
    assert (k["trendy_token"], k["subway_token"], k["subway_card_most_subway_tokens"], k["archaeological_token"],
            k["archaeological_card_last_taken"]) == (3, 1, 3, -1, -2)
    assert (k["expert_highest_building_per_district"], k["expert_neighborhood_objective_per_building_of_kind"]) == (5, 2)
    assert dict(k["expert_area_objectives"]) == {"bridges": 4, "statues": 7, "lakes": 5, "districts": 4, "chains": 4}


def test_every_place_on_the_board_keeps_its_name_and_position_for_the_map(board):
    """The pages draw the neighborhoods, lakes and statues where the parsed board puts them."""
    for n in RAW["neighborhoods"]:
        got = board.neighborhoods[n["id"]]
        assert (got.id, got.x, got.y) == (n["id"], n["x"], n["y"])
    for parsed, raw in ((board.lakes, RAW["lakes"]), (board.statues, RAW["statues"])):
        assert [(f.id, f.x, f.y, f.neighborhoods) for f in parsed] == [
            (f["id"], f["x"], f["y"], tuple(f["neighborhoods"])) for f in raw]
        assert all(isinstance(f.x, float) and isinstance(f.y, float) for f in parsed)
