"""Preparation: players and colours, districts out of play, token layouts, the secret card decks."""
import random
from collections import Counter

import pytest

from games import BOARD, RAW, TWO_PLAYER_PAIRS, layout_with, setup_for

from companion.game import RuleError
from companion.game.board import PERIPHERAL
from companion.game.setup import check_layout, check_removed, check_saved_layout, deal, make_setup, random_layout
from companion.game.state import EXPERT_AREAS, FAMILY_AREAS, NEIGHBORHOOD_CARDS, Seat

COUNTS = {4: (9, 9, 9), 3: (8, 7, 7), 2: (5, 6, 6)}  # RECORD.md: trendy/subway/archaeological


def sentence(fn, *args):
    with pytest.raises(RuleError) as e:
        fn(*args)
    return e.value.sentence


def removals():
    yield 4, ()
    for d in PERIPHERAL:
        yield 3, (d,)
    for pair in TWO_PLAYER_PAIRS:
        yield 2, pair


# --- Districts out of play -------------------------------------------------------------------------

@pytest.mark.parametrize("district", PERIPHERAL)
def test_3_players_may_remove_any_one_peripheral_district(district):
    assert check_removed(3, [district]) == {district}
    setup_for(("blue", "red", "gray"), removed=(district,))


@pytest.mark.parametrize("pair", TWO_PLAYER_PAIRS)
def test_2_players_remove_two_adjacent_peripheral_districts(pair):
    assert check_removed(2, pair) == set(pair)
    setup_for(("blue", "red"), removed=pair)


def test_2_players_cannot_remove_opposite_districts():
    assert sentence(check_removed, 2, ["north", "south"]) == "2 players must remove two adjacent districts, not north and south"
    assert sentence(check_removed, 2, ["south", "north"]) == "2 players must remove two adjacent districts, not north and south"
    assert sentence(check_removed, 2, ["west", "east"]) == "2 players must remove two adjacent districts, not east and west"


def test_wrong_number_or_kind_of_removed_districts():
    assert sentence(check_removed, 4, ["north"]) == "4 players must remove 0 peripheral districts, not 1"
    assert sentence(check_removed, 3, []) == "3 players must remove 1 peripheral district, not 0"
    assert sentence(check_removed, 3, ["north", "east"]) == "3 players must remove 1 peripheral district, not 2"
    assert sentence(check_removed, 2, ["north"]) == "2 players must remove 2 peripheral districts, not 1"
    assert sentence(check_removed, 3, ["center"]) == "center is not a peripheral district (north, east, south, west)"
    assert sentence(check_removed, 2, ["east", "east"]) == "the east district is listed twice among the removed districts"


def test_players_and_colours():
    seats = [Seat(c, "", a) for c, a in zip(("blue", "red", "white", "gray"), FAMILY_AREAS)]
    tokens = layout_with(4)
    assert sentence(make_setup, "family", seats[:1], (), tokens) == "a game needs 2 to 4 players, not 1"
    assert sentence(make_setup, "family", seats + [Seat("blue", "", "x")], (), tokens) == "a game needs 2 to 4 players, not 5"
    assert sentence(make_setup, "family", [Seat("green", "", "bridges")] + seats[1:], (), tokens) == \
        "green is not a player colour (blue, red, white, gray)"
    assert sentence(make_setup, "family", [seats[0], Seat("blue", "", "statues")] + seats[2:], (), tokens) == \
        "blue is taken by two players"
    assert sentence(make_setup, "chess", seats, (), tokens) == "the mode must be family or expert, not chess"


# --- Token layouts ---------------------------------------------------------------------------------

@pytest.mark.parametrize("players, removed", list(removals()))
def test_random_layout_is_always_a_printed_one(players, removed):
    eligible = {n["id"] for n in RAW["neighborhoods"] if not n["blind_alley"]}
    for seed in range(300):
        layout = random_layout(players, frozenset(removed), random.Random(seed))
        assert check_layout(players, frozenset(removed), layout) == layout
        assert tuple(Counter(layout.values())[k] for k in ("trendy", "subway", "archaeological")) == COUNTS[players]
        per_district = Counter(BOARD.neighborhoods[nb].district for nb in layout)
        assert per_district == {"center": 7, **{d: 5 for d in PERIPHERAL if d not in removed}}
        assert set(layout) <= eligible


def test_random_layout_is_seeded():
    a = [random_layout(4, frozenset(), random.Random(s)) for s in range(20)]
    assert a == [random_layout(4, frozenset(), random.Random(s)) for s in range(20)]
    assert len({tuple(sorted(x.items())) for x in a}) == 20


def bad_layout(players, removed, change):
    layout = layout_with(players, removed, seed=1)
    change(layout)
    return sentence(check_layout, players, frozenset(removed), layout)


def test_hand_layouts_are_checked():
    def move(src_kind, dst):
        def f(layout):
            nb = next(n for n, k in layout.items() if k == src_kind and BOARD.neighborhoods[n].district == BOARD.neighborhoods[dst].district)
            del layout[nb]
            layout[dst] = src_kind
        return f

    def first_empty(district, layout, blind=False):
        return next(n for n in BOARD.districts[district] if n not in layout and BOARD.neighborhoods[n].blind_alley == blind)

    layout4 = layout_with(4, seed=1)
    assert check_layout(4, frozenset(), layout4) == layout4
    assert bad_layout(4, (), move("trendy", "C12")) == "a token lies on C12, a blind alley, where tokens never go"
    assert bad_layout(4, (), lambda l: l.update(X01="trendy")) == "a token lies on X01, which is not a neighborhood"
    nb = sorted(layout4)[0]
    assert bad_layout(4, (), lambda l: l.update({nb: "gold"})) == f"the token on {nb} is gold, not trendy, subway or archaeological"
    w = next(n for n in BOARD.districts["west"] if not BOARD.neighborhoods[n].blind_alley)
    assert bad_layout(3, ("west",), lambda l: l.update({w: "trendy"})) == \
        f"a token lies on {w}, in the west district, which is not in play"

    def swap_kind(layout):  # one subway becomes trendy: per-district counts still fine
        nb = next(n for n, k in layout.items() if k == "subway")
        layout[nb] = "trendy"
    assert bad_layout(4, (), swap_kind) == "4 players use 9 trendy tokens, not 10"
    assert bad_layout(3, ("north",), swap_kind) == "3 players use 8 trendy tokens, not 9"
    assert bad_layout(2, ("north", "east"), swap_kind) == "2 players use 5 trendy tokens, not 6"

    def center_to_north(layout):  # a center token moves to the north: 6 in the center, 6 in the north
        nb = next(n for n in sorted(layout) if BOARD.neighborhoods[n].district == "center")
        kind = layout.pop(nb)
        layout[first_empty("north", layout)] = kind
    assert bad_layout(4, (), center_to_north) == "the center district takes 7 tokens, not 6"


def test_the_printed_2_and_3_player_token_counts_are_enforced_for_every_removal():
    for players, removed in removals():
        layout = layout_with(players, removed, seed=players)
        assert tuple(Counter(layout.values())[k] for k in ("trendy", "subway", "archaeological")) == COUNTS[players]
        check_layout(players, frozenset(removed), layout)


# --- Secret cards ----------------------------------------------------------------------------------

def test_family_deal_gives_one_area_card_each_and_leaves_borders_out_with_2_players():
    for seed in range(200):
        for n in (2, 3, 4):
            cards = deal("family", n, random.Random(seed))
            areas = [a for a, h in cards]
            assert len(cards) == n and len(set(areas)) == n and all(h is None for a, h in cards)
            assert set(areas) <= set(FAMILY_AREAS)
            if n == 2:
                assert "borders" not in areas
    assert {a for s in range(200) for a, _ in deal("family", 4, random.Random(s))} == set(FAMILY_AREAS)


def test_expert_deal_gives_one_of_5_area_and_one_of_5_neighborhood_cards_without_duplicates():
    seen = set()
    for seed in range(200):
        for n in (2, 3, 4):
            cards = deal("expert", n, random.Random(seed))
            areas, kinds = [a for a, _ in cards], [h for _, h in cards]
            assert len(set(areas)) == len(set(kinds)) == n
            assert set(areas) <= set(EXPERT_AREAS) and set(kinds) <= set(NEIGHBORHOOD_CARDS)
            seen.update(cards)
            setup_for(("blue", "red", "white", "gray")[:n], mode="expert", cards=cards,
                      removed=() if n == 4 else ("west",) if n == 3 else ("south", "west"))
    assert {a for a, _ in seen} == set(EXPERT_AREAS) and {h for _, h in seen} == set(NEIGHBORHOOD_CARDS)


def test_deal_is_deterministic_per_seed():
    for mode in ("family", "expert"):
        assert [deal(mode, 4, random.Random(s)) for s in range(30)] == [deal(mode, 4, random.Random(s)) for s in range(30)]
        assert len({tuple(deal(mode, 4, random.Random(s))) for s in range(30)}) > 5


def test_cards_are_checked():
    tokens2 = layout_with(2, ("north", "east"))
    two = lambda mode, a, b: make_setup(mode, [Seat("blue", "", *a), Seat("red", "", *b)], ("north", "east"), tokens2)
    assert sentence(two, "family", ("borders", None), ("lakes", None)) == \
        "blue holds the borders card, which is left out of 2-player games"
    assert sentence(two, "family", ("chains", None), ("lakes", None)) == \
        "blue holds chains, which is not one of the family area cards (bridges, statues, lakes)"
    assert sentence(two, "expert", ("borders", "park"), ("lakes", "mall")) == \
        "blue holds borders, which is not one of the expert area cards (bridges, statues, lakes, districts, chains)"
    assert sentence(two, "family", ("lakes", None), ("lakes", None)) == "lakes is dealt to two players, but the deck holds it once"
    assert sentence(two, "expert", ("lakes", "park"), ("chains", "park")) == "park is dealt to two players, but the deck holds it once"
    assert sentence(two, "expert", ("lakes", "park"), ("chains", "garden")) == \
        "red holds garden, which is not a neighborhood card (mall, administration, industrial, park, lodgings)"
    assert sentence(two, "expert", ("lakes", "park"), ("chains", None)) == \
        "red has no neighborhood card, which the expert game deals to everyone"
    assert sentence(two, "family", ("lakes", "park"), ("statues", None)) == \
        "blue holds a neighborhood card, which only the expert game uses"
    assert sentence(two, "family", (None, None), ("statues", None)) == "blue has no area card"
    # Borders is fine with 3 or 4 players.
    setup_for(("blue", "red", "white"), removed=("north",), cards=[("borders", None), ("lakes", None), ("statues", None)])


# --- Layouts saved for reuse -------------------------------------------------------------------------

@pytest.mark.parametrize("players, removed", list(removals()))
def test_a_saved_layout_is_for_the_table_whose_districts_it_leaves_empty(players, removed):
    """"2 players: remove 2 adjacent peripheral districts ... 3 players: remove 1": the empty districts say which."""
    layout = layout_with(players, removed, seed=3)
    assert check_saved_layout(layout) == (players, frozenset(removed))


def test_a_saved_layout_is_checked_as_strictly_as_a_games():
    layout = layout_with(4, (), seed=3)
    with pytest.raises(RuleError) as e:
        check_saved_layout({**layout, "Z99": "trendy"})
    assert e.value.code == "token_unknown_neighborhood" and "Z99" in e.value.sentence
    # three districts empty: no table plays with three out, named by the third one empty
    center_only = {nb: kind for nb, kind in layout.items() if BOARD.neighborhoods[nb].district in ("center", "north")}
    with pytest.raises(RuleError) as e:
        check_saved_layout(center_only)
    assert e.value.code == "token_district_count"
    assert e.value.params == {"district": [d for d in PERIPHERAL if d != "north"][2], "need": 5, "got": 0}
    # two opposite districts empty: not a 2-player removal
    opposite = {nb: kind for nb, kind in layout.items() if BOARD.neighborhoods[nb].district not in ("north", "south")}
    with pytest.raises(RuleError) as e:
        check_saved_layout(opposite)
    assert e.value.code == "removed_not_adjacent"
    # one token short in a district in play
    short = dict(layout)
    short.pop(next(nb for nb in layout if BOARD.neighborhoods[nb].district == "east"))
    with pytest.raises(RuleError) as e:
        check_saved_layout(short)
    assert e.value.code == "token_kind_count" and e.value.params["count"] == 4
    assert e.value.params["need"] - e.value.params["got"] == 1


def _moved(layout: dict, src: str, dst: str, count: int) -> dict:
    """The layout with `count` tokens of district `src` moved to free token spots of district `dst`."""
    layout = dict(layout)
    free = [nb for nb in BOARD.districts[dst] if BOARD.neighborhoods[nb].token_eligible and nb not in layout]
    for nb, spot in zip([nb for nb in layout if BOARD.neighborhoods[nb].district == src][:count], free):
        layout[spot] = layout.pop(nb)
    return layout


def test_a_district_left_empty_is_named_with_none_of_its_five():
    """"placing 7 tokens in the center district and 5 tokens in each peripheral district": East's five all moved
    to West leaves the counts per kind right and East with none."""
    layout = _moved(layout_with(4, (), seed=3), "east", "west", 5)
    with pytest.raises(RuleError) as e:
        check_layout(4, frozenset(), layout)
    assert (e.value.code, e.value.params) == ("token_district_count", {"district": "east", "need": 5, "got": 0})


def test_every_district_in_play_after_one_out_is_counted():
    """With North out (3 players), South's and West's counts are still checked: one token moved between them."""
    layout = _moved(layout_with(3, ("north",), seed=3), "south", "west", 1)
    with pytest.raises(RuleError) as e:
        check_layout(3, frozenset({"north"}), layout)
    assert (e.value.code, e.value.params) == ("token_district_count", {"district": "south", "need": 5, "got": 4})
