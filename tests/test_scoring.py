"""End of game: tokens, special cards, area and neighborhood cards, highest buildings, winners."""
import random
from dataclasses import replace

import pytest

from games import (BOARD, RAW, brute_area, brute_max_disjoint, candidate_groups, cluster, layout_with, position,
                   setup_for)

from companion.game.scoring import (area_group_list, area_groups, disjoint_groups, explain, family_area_hits,
                                     max_disjoint, score)

EIGHT = ("trendy", "subway", "subway_card", "archaeological", "archaeological_card", "area", "neighborhood", "highest")
AREA_POINTS = {"bridges": 4, "statues": 7, "lakes": 5, "districts": 4, "chains": 4}  # printed on the cards


def two(mode="expert", cards=(("chains", "park"), ("lakes", "mall")), removed=("north", "east")):
    return setup_for(("blue", "red"), mode=mode, removed=removed, cards=list(cards),
                     tokens=layout_with(2, removed, seed=2))


def scored(setup, buildings, **kw):
    out = score(position(setup, buildings, **kw), BOARD)
    for p in out["players"].values():
        assert tuple(p["breakdown"]) == EIGHT and p["total"] == sum(p["breakdown"].values())
    return out


# --- Tokens and special cards ----------------------------------------------------------------------

def test_tokens_and_special_cards():
    s = two(mode="family", cards=(("lakes", None), ("statues", None)))
    out = scored(s, {"C12": ("blue", 1)}, collected={"blue": (2, 3, 4), "red": (1, 0, 1)},
                 subway_card="blue", archaeological_card="red")
    b, r = out["players"]["blue"]["breakdown"], out["players"]["red"]["breakdown"]
    # "3 prestige points" per trendy, "1" per subway, "3" for the subway card, "loses 1" per site, "loses 2" for its card
    assert (b["trendy"], b["subway"], b["subway_card"], b["archaeological"], b["archaeological_card"]) == (6, 3, 3, -4, 0)
    assert (r["trendy"], r["subway"], r["subway_card"], r["archaeological"], r["archaeological_card"]) == (3, 0, 0, -1, -2)
    assert out["players"]["blue"]["total"] == 8 and out["players"]["red"]["total"] == 0
    assert out["players"]["blue"]["buildings"] == 1 and out["players"]["red"]["buildings"] == 0


# --- Family area cards -----------------------------------------------------------------------------

@pytest.mark.parametrize("card, buildings, points", [
    # C01 sits on two bridges (to N05 and N08), N05 on two (C01, W03): "placing a building in a neighborhood
    # connected with several bridges yields only 3 points"
    ("bridges", ("C01", "N05", "C09", "C12"), 6),
    ("bridges", ("E01", "W03", "S10", "C03"), 9),  # E01: bridges to C07 and N09; W03: to N05; S10: to E10
    # W03 touches statues W01-W02-W03 and W02-W03-W04; C04 touches C01-C03-C04 and C04-C05-C10
    ("statues", ("W03", "C04", "C09", "C06"), 6),
    # C08 and C09 border both center lakes; C01 borders none
    ("lakes", ("C08", "C09", "C01"), 6),
    ("borders", ("N01", "W07", "S10", "C01", "E09"), 9),
])
def test_family_area_card_3_points_per_building_next_to_its_feature_once_each(card, buildings, points):
    s = setup_for(("blue", "red", "white", "gray"), cards=[(card, None)] + [
        (c, None) for c in ("bridges", "statues", "lakes", "borders") if c != card])
    out = scored(s, {nb: ("blue", v) for v, nb in enumerate(buildings, 1)})
    assert out["players"]["blue"]["breakdown"]["area"] == points
    assert all(p["breakdown"]["neighborhood"] == p["breakdown"]["highest"] == 0 for p in out["players"].values())


def test_a_bridge_counts_even_when_its_far_side_is_out_of_play():
    s = setup_for(("blue", "red", "white"), removed=("north",), cards=[("bridges", None), ("lakes", None), ("statues", None)])
    out = scored(s, {"C01": ("blue", 4)})  # both of C01's bridges lead into the north
    assert out["players"]["blue"]["breakdown"]["area"] == 3


def test_the_city_border_does_not_move_when_a_district_is_removed():
    s = setup_for(("blue", "red", "white"), removed=("south",), cards=[("borders", None), ("lakes", None), ("statues", None)])
    out = scored(s, {"C13": ("blue", 4), "C14": ("blue", 5), "N02": ("blue", 6)})  # C13/C14 now face the gap
    assert out["players"]["blue"]["breakdown"]["area"] == 3


FEATURES = {  # straight from the board JSON: what each Family area card's feature touches
    "bridges": {n for e in RAW["adjacencies"] if e["bridge"] for n in (e["a"], e["b"])},
    "statues": {n for f in RAW["statues"] for n in f["neighborhoods"]},
    "lakes": {n for f in RAW["lakes"] for n in f["neighborhoods"]},
    "borders": set(RAW["city_border"]["neighborhoods"]),
}


@pytest.mark.parametrize("card", FEATURES)
def test_family_area_card_on_random_buildings_follows_the_board(card):
    others = [(c, None) for c in FEATURES if c != card]
    s = setup_for(("blue", "red", "white", "gray"), cards=[(card, None)] + others)
    rng = random.Random(card)
    for _ in range(100):
        mine = rng.sample(sorted(BOARD.neighborhoods), rng.randint(0, 13))
        out = scored(s, {nb: ("blue", v) for v, nb in enumerate(mine, 1)})
        assert out["players"]["blue"]["breakdown"]["area"] == 3 * len(FEATURES[card] & set(mine))


# --- Expert cards ----------------------------------------------------------------------------------

def test_neighborhood_card_2_points_per_building_of_its_kind():
    s = two(cards=(("districts", "park"), ("lakes", "mall")))
    out = scored(s, {"C06": ("blue", 1), "C08": ("blue", 2), "C01": ("blue", 3), "C03": ("red", 4)})
    assert out["players"]["blue"]["breakdown"]["neighborhood"] == 4  # C06, C08 are parks
    assert out["players"]["red"]["breakdown"]["neighborhood"] == 2   # C03 is a mall


def test_districts_card_4_points_per_district_with_three_or_more_buildings():
    s = two(cards=(("districts", "park"), ("lakes", "mall")), removed=("north", "east"))
    center6 = {nb: ("blue", v) for v, nb in enumerate(("C01", "C02", "C03", "C04", "C05", "C06"), 1)}
    assert scored(s, center6)["players"]["blue"]["breakdown"]["area"] == 4  # "three or more ... yields only 4 points"
    south2 = dict(center6, S02=("blue", 7), S03=("blue", 8))
    assert scored(s, south2)["players"]["blue"]["breakdown"]["area"] == 4
    south3 = dict(south2, S04=("blue", 9))
    assert scored(s, south3)["players"]["blue"]["breakdown"]["area"] == 8


@pytest.mark.parametrize("card, buildings, groups", [
    # PROVENANCE.md: "six buildings where one touches the five others form one chain, not two"
    ("chains", ("S02", "C13", "S01", "S03", "W08", "W10"), 1),
    ("chains", ("E09", "C15", "E08", "E10", "S05", "S09"), 1),
    # a path of six: greedy taking the middle three finds one chain; the maximum is two
    ("chains", ("C04", "C05", "C06", "C01", "C07", "N10"), 2),
    ("chains", ("C04", "C05", "C06"), 1),
    ("chains", ("C04", "C05", "C07"), 0),
    # bridges C15-E09, C15-S05, E09-S05, E09-S09: greedy on C15-E09 finds one pair, the maximum is two
    ("bridges", ("C15", "E09", "S05", "S09"), 2),
    ("bridges", ("C01", "N05", "N08"), 1),  # C01 is on both bridges: "only counted once"
    # C08, C09, C10 border both center lakes: the maximum uses two of them for different lakes
    ("lakes", ("C08", "C09", "C10", "C02", "C03", "C11"), 2),
    ("lakes", ("C08", "C09", "C10"), 1),
    ("lakes", ("N01", "N02", "N05", "N06", "N07"), 1),  # "at least three": one group per lake
    ("statues", ("W01", "W02", "W03", "W04"), 1),  # the two west statues share W02, W03
    ("statues", ("C01", "C03", "C04", "C05", "C10", "C11", "C14", "C15"), 2),
])
def test_expert_area_card_counts_the_most_disjoint_groups(card, buildings, groups):
    assert brute_area(card, set(buildings)) == groups  # the independent count agrees with the hand count
    others = [(c, k) for c, k in zip([c for c in AREA_POINTS if c != card], ("park", "industrial", "lodgings"))]
    s = setup_for(("blue", "red", "white", "gray"), mode="expert", cards=[(card, "mall")] + others)
    out = scored(s, {nb: ("blue", v) for v, nb in enumerate(buildings, 1)})
    assert out["players"]["blue"]["breakdown"]["area"] == groups * AREA_POINTS[card]


@pytest.mark.parametrize("card", ["chains", "lakes", "bridges", "statues", "districts"])
def test_expert_area_groups_equal_brute_force_on_random_building_sets(card):
    rng = random.Random(card)
    for i in range(600):
        size = rng.randint(0, 13)
        mine = cluster(rng, size) if i % 2 else set(rng.sample(sorted(BOARD.neighborhoods), size))
        best = brute_area(card, mine)
        assert area_groups(BOARD, card, mine) == best, (card, sorted(mine))
        # What the tally names, and counts (explain() takes the card's count from this list's length): as many
        # groups, pairwise disjoint, of the player's own buildings.
        named = area_group_list(BOARD, card, mine)
        assert len(named) == best, (card, sorted(mine), named)
        flat = [nb for g in named for nb in g]
        assert len(flat) == len(set(flat)) and set(flat) <= mine and all(len(g) >= 2 for g in named), named


def test_brute_force_itself_finds_what_greedy_misses():
    a, b, c, d = (frozenset(x) for x in ("ab", "bc", "cd", "xy"))
    assert brute_max_disjoint([b, a, c]) == 2 and brute_max_disjoint([a, b, c, d]) == 3
    assert brute_max_disjoint([]) == 0
    assert len(candidate_groups("chains", {"C04", "C05", "C10"})) == 1  # a triangle is one group


# --- Highest building per district -----------------------------------------------------------------

@pytest.mark.parametrize("blue, red, winners", [
    ({"S02": 5}, {"S03": 4}, {"blue", "red"}),                       # both small: "If the tie cannot be settled"
    ({"S02": 5, "S04": 1}, {"S03": 4}, {"blue"}),                    # second highest: having one beats none
    ({"S02": 5}, {"S03": 4, "S04": 2}, {"red"}),
    ({"S02": 9, "S04": 2}, {"S03": 6, "S05": 3}, {"blue", "red"}),   # 9 vs 6 both medium, then small vs small
    ({"S02": 9, "S04": 2}, {"S03": 6, "S05": 7}, {"red"}),           # medium, medium beats medium, small
    ({"S02": 10}, {"S03": 9, "S04": 8, "S05": 7}, {"blue"}),         # "height, not value": one tall beats three medium
    ({"S02": 13}, {"S03": 10}, {"blue", "red"}),                     # 13 and 10 are both tall
    ({"S02": 1}, {}, {"blue"}),                                      # alone in the district
    ({"S02": 6, "S04": 1, "S05": 2}, {"S03": 6, "S07": 1, "S08": 2}, {"blue", "red"}),
    ({"S02": 6, "S04": 1, "S05": 2}, {"S03": 6, "S07": 1}, {"blue"}),  # third highest decides
])
def test_highest_building_by_size_with_the_tie_break(blue, red, winners):
    s = two(cards=(("districts", "park"), ("chains", "mall")), removed=("north", "east"))
    out = scored(s, {**{nb: ("blue", v) for nb, v in blue.items()}, **{nb: ("red", v) for nb, v in red.items()}})
    got = {c for c in ("blue", "red") if out["players"][c]["breakdown"]["highest"] == 5}
    assert got == winners
    assert all(out["players"][c]["breakdown"]["highest"] == 0 for c in {"blue", "red"} - winners)
    assert set(explain(position(s, {**{nb: ("blue", v) for nb, v in blue.items()},
                                    **{nb: ("red", v) for nb, v in red.items()}}))["highest"]["south"]) == winners


def test_highest_is_counted_per_district_in_play_and_only_in_the_expert_game():
    b = {"S02": ("blue", 10), "C01": ("blue", 6), "W01": ("red", 1), "C02": ("red", 2)}
    s = two(cards=(("districts", "park"), ("chains", "mall")), removed=("north", "east"))
    out = scored(s, b)
    assert out["players"]["blue"]["breakdown"]["highest"] == 10  # south and center
    assert out["players"]["red"]["breakdown"]["highest"] == 5    # west
    fam = scored(two(mode="family", cards=(("lakes", None), ("statues", None))), b)
    assert fam["players"]["blue"]["breakdown"]["highest"] == fam["players"]["blue"]["breakdown"]["neighborhood"] == 0


# --- Winners ---------------------------------------------------------------------------------------

def winner_setup():
    # Nobody's buildings below touch their own card's feature, so totals come from tokens alone.
    return setup_for(("white", "blue", "red"), removed=("north",),
                     cards=[("lakes", None), ("borders", None), ("statues", None)])


BASE = {"C02": ("blue", 1), "C03": ("blue", 2), "C06": ("red", 1), "C07": ("red", 2), "C01": ("white", 1), "C05": ("white", 2)}
TOKENS = {"blue": (2, 0, 0), "red": (1, 3, 0), "white": (2, 1, 1)}  # 6 points each


def test_most_points_wins():
    out = scored(winner_setup(), BASE, collected=TOKENS, subway_card="blue")
    assert [out["players"][c]["total"] for c in ("white", "blue", "red")] == [6, 9, 6]
    assert out["winners"] == ["blue"]


def test_tied_players_with_the_most_buildings_win():
    out = scored(winner_setup(), dict(BASE, C15=("white", 3)), collected=TOKENS)
    assert [out["players"][c]["total"] for c in ("white", "blue", "red")] == [6, 6, 6]
    assert out["winners"] == ["white"]
    assert explain(position(winner_setup(), dict(BASE, C15=("white", 3)), collected=TOKENS))["tiebreak"] == "buildings"


def test_still_tied_players_share_the_victory_listed_in_seating_order():
    out = scored(winner_setup(), BASE, collected=TOKENS)
    assert out["winners"] == ["white", "blue", "red"]
    out = scored(winner_setup(), dict(BASE, C08=("red", 3), C15=("white", 3)), collected=TOKENS)
    assert out["winners"] == ["white", "red"]
    out = scored(winner_setup(), BASE, collected=TOKENS, archaeological_card="white")
    assert out["winners"] == ["blue", "red"]


# --- The groups the tally names, and the packing itself ---------------------------------------------------------

def test_three_buildings_exactly_around_a_statue_are_the_group_the_tally_names():
    """Statues: "7 prestige points for each group of three buildings he has constructed around a statue": a player
    whose only buildings are the three around statue-01 is shown that group, not an empty list beside its 7 points."""
    others = [("lakes", "park"), ("chains", "industrial"), ("bridges", "lodgings")]
    s = setup_for(("blue", "red", "white", "gray"), mode="expert", cards=[("statues", "mall")] + others)
    out = explain(position(s, {"W01": ("blue", 1), "W02": ("blue", 2), "W03": ("blue", 3)}), BOARD)
    assert out["details"]["blue"]["area_group_list"] == [["W01", "W02", "W03"]]
    assert out["scores"]["players"]["blue"]["breakdown"]["area"] == 7


@pytest.mark.parametrize("fn", [area_group_list, area_groups, family_area_hits])
def test_a_card_no_deck_holds_is_refused_by_its_name(fn):
    with pytest.raises(ValueError, match="^moon$"):
        fn(BOARD, "moon", {"C01"})


def test_the_packing_is_the_largest_for_any_groups_of_three():
    """"each building may only be used once to earn an area objective": the count is the largest set of disjoint
    groups for any groups, also where every packing that uses the first building is one short (a-x-y blocks both
    x-p-q and y-r-s)."""
    blocked = [frozenset("axy"), frozenset("xpq"), frozenset("yrs")]
    assert max_disjoint(blocked) == 2 and sorted(map(sorted, disjoint_groups(blocked))) == [
        ["p", "q", "x"], ["r", "s", "y"]]
    # The same after a first group is taken: a-b-c is named once, d-x-y left out.
    later = [frozenset("abc"), frozenset("dxy"), frozenset("xpq"), frozenset("yrs")]
    assert sorted(map(sorted, disjoint_groups(later))) == [["a", "b", "c"], ["p", "q", "x"], ["r", "s", "y"]]
    rng = random.Random(33)
    for _ in range(300):
        items = "abcdefghij"[:rng.randint(3, 10)]
        groups = [frozenset(rng.sample(items, 3)) for _ in range(rng.randint(0, 8))]
        chosen = disjoint_groups(groups)
        assert len(chosen) == max_disjoint(groups) == brute_max_disjoint(groups), groups
        assert all(g in groups for g in chosen) and len(set().union(*chosen)) == 3 * len(chosen)


def test_a_tie_that_neither_points_nor_buildings_settle_is_shared():
    """"In case of a new tie, the tied players share the victory.\""""
    out = explain(position(winner_setup(), BASE, collected=TOKENS), BOARD)
    assert (out["scores"]["winners"], out["tiebreak"]) == (["white", "blue", "red"], "shared")


def test_the_facts_behind_each_line_are_named_for_the_end_screen():
    """The breakdown's facts: every building, the groups of the area card, the buildings of the neighborhood card's
    kind ("2 prestige points for each building ... of the kind featured on his card") and the districts where the
    player's building is the highest; Family: the buildings next to the card's feature."""
    s = setup_for(("blue", "red"), mode="expert", removed=("north", "east"),
                  cards=[("statues", "lodgings"), ("lakes", "mall")])
    mine = {"W01": ("blue", 10), "W02": ("blue", 2), "W03": ("blue", 3), "C01": ("red", 1)}
    out = explain(position(s, mine), BOARD)
    blue = out["details"]["blue"]
    kinds = sorted(nb for nb in ("W01", "W02", "W03") if BOARD.neighborhoods[nb].kind == "lodgings")
    assert blue == {"buildings": ["W01", "W02", "W03"], "area_groups": 1, "neighborhood_buildings": kinds,
                    "highest_districts": ["west"], "area_group_list": [["W01", "W02", "W03"]]}
    assert out["details"]["red"]["highest_districts"] == ["center"]
    fam = setup_for(("blue", "red"), removed=("north", "east"), cards=[("statues", None), ("lakes", None)])
    out = explain(position(fam, mine), BOARD)
    assert out["details"]["blue"] == {"buildings": ["W01", "W02", "W03"], "area_buildings": ["W01", "W02", "W03"]}


@pytest.mark.parametrize("mode", ["family", "expert"])
def test_a_player_whose_area_card_is_not_known_yet_scores_no_area(mode):
    """The tally 'if it ended now' of a board whose secret cards are not all entered: no card, no area points."""
    s = setup_for(("blue", "red"), mode=mode, removed=("north", "east"))
    s = replace(s, seats=(replace(s.seats[0], area=None), s.seats[1]))
    out = explain(position(s, {"W01": ("blue", 1), "W02": ("blue", 2), "W03": ("blue", 3)}), BOARD)
    assert out["scores"]["players"]["blue"]["breakdown"]["area"] == 0
    blue = out["details"]["blue"]
    assert (blue.get("area_groups", 0), blue.get("area_group_list", []), blue.get("area_buildings", [])) == (0, [], [])


def test_every_line_of_the_tally_is_a_whole_number():
    """RECORD.md's scores are integers: a subway token is 1 point, a site token -1, never 1.0."""
    out = scored(winner_setup(), BASE, collected={"white": (1, 3, 2), "blue": (0, 0, 0), "red": (0, 0, 0)},
                 subway_card="white", archaeological_card="white")
    white = out["players"]["white"]
    assert white["breakdown"]["subway"] == 3 and white["breakdown"]["archaeological"] == -2
    assert all(type(v) is int for p in out["players"].values() for v in [p["total"], *p["breakdown"].values()])


def test_two_tied_on_points_are_parted_by_their_buildings_and_one_alone_wins_on_points():
    """"In case of tie, the tied player who has constructed the most buildings wins.\""""
    two_tied = dict(BASE, C15=("blue", 3))                              # blue 6 and 3 buildings, white 6 and 2
    out = explain(position(winner_setup(), two_tied, collected={**TOKENS, "red": (0, 0, 0)}), BOARD)
    assert [out["scores"]["players"][c]["total"] for c in ("white", "blue", "red")] == [6, 6, 0]
    assert (out["scores"]["winners"], out["tiebreak"]) == (["blue"], "buildings")
    out = explain(position(winner_setup(), BASE, collected=TOKENS, subway_card="blue"), BOARD)
    assert (out["scores"]["winners"], out["tiebreak"]) == (["blue"], "points")
