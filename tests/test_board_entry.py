"""Score a finished board (issue 19): a board typed in gets exactly the engine's tally; impossible boards are refused."""
import random

import pytest

from games import BOARD, position, random_game, setup_for

from companion.game import RuleError
from companion.game.board_entry import (HEIGHTS, FinishedBoard, check_complete, check_unique, hold, new_board, place,
                                        reveal, set_tokens, tally, to_state)
from companion.game.errors import MESSAGES
from companion.game.scoring import explain
from companion.game.state import VALUES, Seat

GAMES = 1000


def height_of(value: int) -> str:
    """What a player reads off a building on the board: its height, never its number."""
    return HEIGHTS[BOARD.size_class(value)]


def enter(final, rng: random.Random) -> FinishedBoard:
    """Type a final board in as a table would, in any order: buildings, tokens, the two cards, the secret cards."""
    setup = final.setup
    fb = new_board(setup.mode, [Seat(s.color, s.name) for s in setup.seats], setup.removed_districts, BOARD)
    nbs = sorted(final.built)
    rng.shuffle(nbs)
    for nb in nbs:
        b = final.built[nb]
        fb = place(fb, nb, b.player, height_of(b.value) if setup.mode == "expert" else None, BOARD)
    for i, color in enumerate(setup.colors):
        fb = set_tokens(fb, color, list(final.collected[i]), BOARD)
    for card, holder in (("subway", final.subway_card), ("archaeological", final.archaeological_card)):
        fb = hold(fb, card, None if holder is None else setup.colors[holder])
    seats = list(setup.seats)
    rng.shuffle(seats)
    for seat in seats:
        fb = reveal(fb, seat.color, seat.area, seat.neighborhood)
    return fb


@pytest.mark.parametrize("chunk", range(4))
def test_a_thousand_engine_games_entered_as_boards_score_exactly_as_the_engine(chunk):
    """Issue 19: for random complete games, entering the final board gives the engine's own tally and winners."""
    per = GAMES // 4
    modes = {"family": 0, "expert": 0}
    tiebreaks = set()
    for seed in range(chunk * per, (chunk + 1) * per):
        rng = random.Random(10_000 + seed)
        _, _, states = random_game(rng)
        final = states[-1]
        assert final.finished
        fb = enter(final, rng)
        got, want = tally(fb, BOARD), explain(final, BOARD)
        # The whole tally: every line, the facts behind it, the highest buildings, the winners and the tie-break.
        assert got == want, seed
        modes[final.setup.mode] += 1
        tiebreaks.add(want["tiebreak"])
    assert min(modes.values()) > per // 4          # both games well covered
    assert "points" in tiebreaks


def expert_table(colors=("blue", "red", "white", "gray")):
    return new_board("expert", [Seat(c, c.title()) for c in colors], (), BOARD)


def refused(code, fn, *args):
    with pytest.raises(RuleError) as e:
        fn(*args)
    assert e.value.code == code
    assert e.value.sentence  # a sentence a player can read
    return e.value


def test_highest_building_is_decided_by_height_then_the_next_height_never_by_value():
    """Rulebook, Expert: "the highest building (in terms of height, not value) [...] In case of tie, the size of
    their second highest buildings [...] decides [...] If the tie cannot be settled, each of the tied players
    takes a 5 point highest building token." So two tall buildings tie whatever their numbers."""
    setup = setup_for(("blue", "red"), mode="expert", removed=("north", "east"))
    west = [nb for nb in BOARD.districts["west"]]
    # Blue's 10 and Red's 13 are both tall; Red's second (medium) beats Blue's second (small).
    final = position(setup, {west[0]: ("blue", 10), west[1]: ("red", 13), west[2]: ("blue", 1),
                             west[3]: ("red", 6)}, finished=False)
    fb = new_board("expert", [Seat("blue"), Seat("red")], ("north", "east"), BOARD)
    for nb, b in final.built.items():
        fb = place(fb, nb, b.player, height_of(b.value), BOARD)
    assert explain(to_state(fb), BOARD)["highest"]["west"] == ["red"]
    fb = place(fb, west[3], "red", "small", BOARD)       # now both are tall then small: shared
    assert explain(to_state(fb), BOARD)["highest"]["west"] == ["blue", "red"]


def test_every_impossible_entry_is_refused_with_its_sentence_and_changes_nothing():
    fb = expert_table()
    c01 = "C01"
    refused("board_unknown_neighborhood", place, fb, "Z99", "blue", "tall", BOARD)
    refused("unknown_player", place, fb, c01, "green", "tall", BOARD)
    refused("board_height_missing", place, fb, c01, "blue", None, BOARD)
    three = new_board("family", [Seat("blue"), Seat("red"), Seat("white")], ("north",), BOARD)
    north = BOARD.districts["north"][0]
    refused("board_district_removed", place, three, north, "blue", None, BOARD)
    # More small (5), medium (4) or tall (4) buildings than a player owns.
    nbs = sorted(BOARD.neighborhoods)
    for height, have in (("small", 5), ("medium", 4), ("tall", 4)):
        f = fb
        for nb in nbs[:have]:
            f = place(f, nb, "blue", height, BOARD)
        e = refused("board_too_many_height", place, f, nbs[have], "blue", height, BOARD)
        assert e.sentence == f"blue has only {have} {height} buildings, not {have + 1}"
        assert sum(1 for c, _ in f.buildings.values() if c == "blue") == have   # f itself unchanged
    # More than 13 of a colour (Family: no heights).
    fam = new_board("family", [Seat("blue"), Seat("red"), Seat("white"), Seat("gray")], (), BOARD)
    for nb in nbs[:13]:
        fam = place(fam, nb, "blue", None, BOARD)
    assert refused("board_too_many", place, fam, nbs[13], "blue", None, BOARD).params["count"] == 14
    # Tokens the setup cannot have: 4 players lay 9 of each kind.
    f = set_tokens(fb, "blue", [5, 5, 5], BOARD)
    e = refused("token_kind_count", set_tokens, f, "red", [5, 0, 0], BOARD)
    assert e.sentence == "4 players use 9 trendy tokens, not 10"
    refused("board_bad_tokens", set_tokens, f, "red", [-1, 0, 0], BOARD)
    refused("board_bad_tokens", set_tokens, f, "red", [1, 0], BOARD)
    refused("board_bad_tokens", set_tokens, f, "red", [1.5, 0, 0], BOARD)
    # A subway card held by a player with fewer subway tokens than another; a card without its tokens.
    f = set_tokens(set_tokens(fb, "blue", [0, 2, 0], BOARD), "red", [0, 3, 1], BOARD)
    e = refused("board_subway_fewer", hold, f, "subway", "blue")
    assert e.sentence == ("blue cannot hold the subway card: red has more subway tokens (3 to 2), "
                          "and it goes to the player with the most")
    refused("board_card_no_token", hold, f, "subway", "white")
    refused("board_card_no_token", hold, f, "archaeological", "blue")
    assert hold(f, "subway", "red").subway_card == "red"
    assert hold(f, "archaeological", "red").archaeological_card == "red"
    refused("board_bad_card", hold, f, "trendy", "red")
    # Secret cards from the game's own decks.
    refused("bad_area", reveal, fb, "blue", "borders", "park")        # a Family card in Expert
    refused("missing_neighborhood_card", reveal, fb, "blue", "lakes", None)
    two = new_board("family", [Seat("blue"), Seat("red")], ("north", "east"), BOARD)
    refused("no_borders_2p", reveal, two, "blue", "borders", None)
    assert fb.buildings == {} and fb.tokens == {}


def test_the_tally_waits_for_a_board_that_can_end_a_game():
    rng = random.Random(7)
    _, _, states = random_game(rng, setup=setup_for(mode="expert", seed=3))
    final = states[-1]
    fb = enter(final, rng)
    check_complete(fb, BOARD)
    full = next(c for c in fb.colors if len(fb.built_by(c)) == 13)
    one = fb.built_by(full)[0]
    # Nobody with 13 buildings: the game has not ended.
    refused("board_not_finished", tally, place(fb, one, None), BOARD)
    # Tokens on more buildings than can hold one.
    poor = min(fb.colors, key=lambda c: len(fb.built_by(c)))
    room = sum(1 for nb in fb.built_by(poor) if BOARD.neighborhoods[nb].token_eligible)
    spare = [9 - sum(fb.held(c)[k] for c in fb.colors if c != poor) for k in range(3)]
    assert sum(spare) > room
    counts = [0, 0, 0]
    for k in range(3):
        counts[k] = min(spare[k], room + 1 - sum(counts))
    bad = set_tokens(fb, poor, counts, BOARD)
    bad = hold(hold(bad, "subway", None), "archaeological", None)
    e = refused("board_tokens_buildings", tally, bad, BOARD)
    assert e.params["color"] == poor
    # Tokens of a card's kind but nobody holds the card.
    assert any(fb.held(c)[1] for c in fb.colors)
    refused("board_card_nobody", tally, hold(fb, "subway", None), BOARD)
    # Secret cards not all entered; a card entered twice: check_unique names it at entry (the server asks it before
    # it appends), and the tally still refuses a log written before that check.
    missing = FinishedBoard(**{**fb.__dict__, "seats": (Seat(fb.seats[0].color),) + fb.seats[1:]})
    refused("board_cards_missing", tally, missing, BOARD)
    first, second = fb.seats[0], fb.seats[1]
    e = refused("board_area_twice", check_unique, fb, second.color, first.area, second.neighborhood)
    assert e.params == {"color": second.color, "card": first.area, "other": first.color}
    if fb.mode == "expert":
        e = refused("board_neighborhood_twice", check_unique, fb, second.color, second.area, first.neighborhood)
        assert e.params == {"color": second.color, "card": first.neighborhood, "other": first.color}
    check_unique(fb, first.color, first.area, first.neighborhood)     # a colour's own entry again: no clash
    twice = reveal(fb, fb.colors[1], fb.seats[0].area, fb.seats[1].neighborhood)
    refused("duplicate_card", tally, twice, BOARD)


def test_two_players_cannot_both_have_built_thirteen():
    fb = new_board("family", [Seat("blue"), Seat("red")], ("north", "east"), BOARD)
    spots = sorted(BOARD.in_play(fb.removed))
    for nb in spots[:13]:
        fb = place(fb, nb, "blue", None, BOARD)
    for nb in spots[13:26]:
        fb = place(fb, nb, "red", None, BOARD)
    refused("board_two_finished", check_complete, fb, BOARD)


def test_every_board_sentence_has_an_english_text():
    for code in ("board_unknown_neighborhood", "board_district_removed", "board_height_missing", "board_too_many",
                 "board_too_many_height", "board_bad_tokens", "board_bad_card",
                 "board_card_no_token", "board_subway_fewer", "board_not_finished", "board_two_finished",
                 "board_tokens_buildings", "board_card_nobody", "board_cards_missing"):
        assert code in MESSAGES


# --- Each refusal's exact sentence, and what a typed board keeps ---------------------------------------------------
# Found by the mutation run (benchmarks/bench_mutations.py): the tests above checked a refusal's code only, so a
# sentence naming nobody ("None is not playing in this game") passed them.


def said(fn, *args):
    """The sentence of the RuleError `fn(*args)` raises."""
    with pytest.raises(RuleError) as e:
        fn(*args)
    return e.value.code, e.value.sentence


def two_players(mode="family"):
    return new_board(mode, [Seat("blue", "Ann"), Seat("red", "Bo")], ("north", "east"), BOARD)


def spots(fb):
    """The neighborhoods in play where a token can lie, in a fixed order."""
    return [nb for nb in sorted(BOARD.in_play(fb.removed)) if BOARD.neighborhoods[nb].token_eligible]


def finished_two(mode="family"):
    """Blue has built all 13 (the game ended), red 3; nobody holds tokens; the cards are not entered."""
    fb = two_players(mode)
    where = spots(fb)
    height = "small" if mode == "expert" else None
    heights = ["small"] * 5 + ["medium"] * 4 + ["tall"] * 4 if mode == "expert" else [None] * 13
    for nb, h in zip(where[:13], heights):
        fb = place(fb, nb, "blue", h, BOARD)
    for nb in where[13:16]:
        fb = place(fb, nb, "red", height, BOARD)
    return fb


def test_each_entry_refused_names_the_player_the_neighborhood_and_the_card():
    fb = two_players("expert")
    assert said(place, fb, "C01", "green", "tall", BOARD) == ("unknown_player", "green is not playing in this game")
    assert said(place, fb, "Z99", "blue", "tall", BOARD) == (
        "board_unknown_neighborhood", "there is no neighborhood Z99 on the board")
    # Not even a name: the same sentence, not a crash on a value that cannot be looked up.
    assert said(place, fb, ["C01"], "blue", "tall", BOARD) == (
        "board_unknown_neighborhood", "there is no neighborhood ['C01'] on the board")
    north = sorted(BOARD.districts["north"])[0]
    assert said(place, fb, north, "blue", "tall", BOARD) == (
        "board_district_removed", f"no building can stand on {north}: the north district is not in play")
    assert said(place, fb, "C01", "blue", None, BOARD) == (
        "board_height_missing", "say how tall the building on C01 is: small (1-5), medium (6-9) or tall (10-13)")
    fam = two_players()
    for nb in spots(fam)[:13]:
        fam = place(fam, nb, "red", None, BOARD)
    assert said(place, fam, spots(fam)[13], "red", None, BOARD) == (
        "board_too_many", "red has only 13 buildings, not 14")
    assert said(set_tokens, fb, "red", [1, -1, 0], BOARD) == (
        "board_bad_tokens", "red's tokens must be whole numbers, none below 0")
    assert said(hold, fb, "trendy", "red") == (
        "board_bad_card", "trendy is not one of the two special cards (subway, archaeological)")
    assert said(hold, fb, "archaeological", "red") == (
        "board_card_no_token", "red cannot hold the archaeological card without a single archaeological token")
    # "In 2 player games ... when playing the Family version, remove the Borders area card."
    assert said(reveal, fam, "red", "borders", None) == (
        "no_borders_2p", "red holds the borders card, which is left out of 2-player games")
    assert said(reveal, fb, "red", "borders", "park") == (
        "bad_area", "red holds borders, which is not one of the expert area cards "
                    "(bridges, statues, lakes, districts, chains)")


def test_taking_a_building_off_an_empty_neighborhood_changes_nothing():
    fb = two_players()
    assert place(fb, "C01", None, None, BOARD) == fb
    built = place(fb, "C01", "blue", None, BOARD)
    assert place(built, "C01", None, None, BOARD).buildings == {}


def test_the_players_names_stay_through_the_table_and_their_cards():
    fb = two_players("expert")
    assert [(s.color, s.name) for s in fb.seats] == [("blue", "Ann"), ("red", "Bo")]
    fb = reveal(fb, "red", "lakes", "park")
    assert fb.seats == (Seat("blue", "Ann"), Seat("red", "Bo", "lakes", "park"))


def test_a_card_entered_for_the_first_seat_is_checked_against_every_other_seat():
    """The deck holds each card once: the clash is found whoever comes first in the seating order."""
    fb = reveal(reveal(two_players("expert"), "red", "lakes", "park"), "blue", "chains", "mall")
    assert said(check_unique, fb, "blue", "lakes", "mall")[0] == "board_area_twice"
    assert said(check_unique, fb, "blue", "chains", "park")[0] == "board_neighborhood_twice"


def test_a_board_that_cannot_have_ended_says_who_and_how_many():
    fb = two_players()
    where = spots(fb)
    for nb in where[:13]:
        fb = place(fb, nb, "blue", None, BOARD)
    for nb in where[13:26]:
        fb = place(fb, nb, "red", None, BOARD)
    # "The game ends as soon as any player has built his last building."
    assert said(check_complete, fb, BOARD) == (
        "board_two_finished", "blue and red cannot both have built 13 buildings: the game ends at the first")
    fb = finished_two()
    three = set_tokens(fb, "red", [2, 1, 1], BOARD)
    assert said(check_complete, three, BOARD) == (
        "board_tokens_buildings", "red has 4 tokens but only 3 buildings where a token can lie (not a blind alley)")
    # Both hold subway tokens, nobody the card: the sentence names the first of them in seating order.
    both = set_tokens(set_tokens(fb, "blue", [0, 1, 0], BOARD), "red", [0, 1, 0], BOARD)
    assert said(check_complete, both, BOARD) == (
        "board_card_nobody", "someone must hold the subway card: blue has subway tokens")
    assert said(check_complete, fb, BOARD) == ("board_cards_missing", "blue's secret cards are not entered yet")


@pytest.mark.parametrize("mode, blue_cards", [
    ("family", (None, None)),        # Family: no area card
    ("expert", ("chains", None)),    # Expert: the area card but no neighborhood card
])
def test_a_tally_waits_for_every_secret_card_of_the_mode(mode, blue_cards):
    """Family deals one area card each, Expert an area and a neighborhood card each: the board says whose are
    missing (board_cards_missing), whichever of the two is."""
    fb = finished_two(mode)
    fb = reveal(fb, "red", "lakes", "park" if mode == "expert" else None)
    fb = fb.__class__(**{**fb.__dict__, "seats": (Seat("blue", "Ann", *blue_cards), fb.seats[1])})
    assert said(check_complete, fb, BOARD) == ("board_cards_missing", "blue's secret cards are not entered yet")


def test_the_state_of_a_typed_board_is_a_finished_game_with_the_rest_in_hand():
    """The tally's state is shown like a game's last state: nobody to act, each building where it stands, the
    buildings not built still the player's, no token left to take."""
    fb = finished_two("expert")
    fb = reveal(reveal(fb, "blue", "chains", "mall"), "red", "lakes", "park")
    st = to_state(fb)
    assert st.finished and st.to_act is None and st.to_act_color is None
    assert all(b.neighborhood == nb for nb, b in st.built.items())
    assert sorted(st.built) == sorted(fb.buildings)
    assert [st.seat(c) for c in ("blue", "red")] == [0, 1]
    # Blue built 5 small, 4 medium, 4 tall: every value; red 3 small ones, the lowest: 1, 2, 3.
    assert st.hands == ((), tuple(v for v in VALUES if v > 3))
    assert st.built_count == (13, 3)
    assert dict(st.tokens) == {} and dict(st.setup.tokens) == {}
