"""The call for proposal, exactly as the English rulebook tells it (sentences quoted in names and comments)."""
import pytest

from games import BOARD, build, layout_with, setup_for

from companion.game import RuleError, apply, legal_actions, new_game
from companion.game.board import board_data
from companion.game.rules import NO_ACTIONS, LegalActions, could_outbid
from companion.game.state import Bid, CallResult, Pass

SEATS4 = ("blue", "gray", "red", "white")


def play(state, *moves):
    """Apply ("color", "nb", value) bids and ("color",) passes in order."""
    for m in moves:
        state = apply(state, Bid(*m) if len(m) == 3 else Pass(m[0]), BOARD)
    return state


def refused(state, action, code, sentence):
    """The action is refused with exactly this sentence, and the state is left as it was."""
    before = (state, legal_actions(state, BOARD))
    with pytest.raises(RuleError) as e:
        apply(state, action, BOARD)
    assert (e.value.code, e.value.sentence) == (code, sentence)
    assert str(e.value) == sentence
    assert (state, legal_actions(state, BOARD)) == before
    return e.value


# --- The worked examples ---------------------------------------------------------------------------

def worked_example_setup():
    # C09 touches only C08 and C10, so once C08 and C09 hold bids, Red "may only outbid" in C10.
    tokens = layout_with(4, fixed={"C10": "trendy", "C04": "subway"}, seed=3)
    cards = [("statues", None), ("lakes", None), ("bridges", None), ("borders", None)]
    return setup_for(SEATS4, tokens=tokens, cards=cards)


def test_rulebook_example_blue_3_gray_7_red_9_white_10_then_red_11_wins():
    s = new_game(worked_example_setup())
    s = play(s, ("blue", "C08", 3), ("gray", "C09", 7))
    # "Red may only outbid by placing a building in the neighborhood containing a trendy neighborhood token"
    la = legal_actions(s, BOARD)
    assert (la.player, la.neighborhoods, la.values, la.can_pass) == ("red", {"C10"}, (8, 9, 10, 11, 12, 13), True)
    assert s.tokens["C10"] == "trendy"
    s = play(s, ("red", "C10", 9), ("white", "C04", 10))  # "White, who is interested in the subway token"
    assert legal_actions(s, BOARD).player == "blue" and legal_actions(s, BOARD).values == (11, 12, 13)
    s = play(s, ("blue",), ("gray",))                      # "Blue ... passes. So does Gray."
    assert legal_actions(s, BOARD).neighborhoods == {"C01", "C03", "C05"}  # empty, next to C04
    s = play(s, ("red", "C01", 11), ("white",))            # "Red ... is willing to pay 11. White passes."
    # "Red is the only remaining player and wins the bid on the call for proposal"
    assert s.call == () and s.passed == frozenset()
    assert {nb: (b.player, b.value) for nb, b in s.built.items()} == {"C01": ("red", 11)}
    assert s.last_call == CallResult("red", "C01", 11, s.setup.tokens.get("C01"), s.last_call.subway_card,
                                     s.last_call.archaeological_card)
    # "All the players take their unbuilt buildings ... back": only Red's 11 is gone, Red's 9 came back.
    assert s.hands == (tuple(range(1, 14)),) * 2 + (tuple(v for v in range(1, 14) if v != 11),) + (tuple(range(1, 14)),)
    assert s.tokens["C10"] == "trendy" and s.tokens["C04"] == "subway"
    # "Red must start a new call in an empty neighborhood of his choice anywhere on the board."
    la = legal_actions(s, BOARD)
    assert (la.player, la.can_pass) == ("red", False)
    assert la.neighborhoods == set(BOARD.neighborhoods) - {"C01"}


def test_the_legal_actions_are_exactly_the_bids_they_list_and_the_pass():
    """Red "may only outbid ... in the neighborhood containing a trendy neighborhood token": C10 with 8 to 13, or
    pass; what they list, count and contain is that and nothing else."""
    s = play(new_game(worked_example_setup()), ("blue", "C08", 3), ("gray", "C09", 7))
    la = legal_actions(s, BOARD)
    listed = list(la)
    assert listed == [Bid("red", "C10", v) for v in range(8, 14)] + [Pass("red")]
    assert len(la) == 7 and bool(la)
    assert all(a in la for a in listed)
    assert Bid("red", "C10", 7) not in la and Bid("red", "C11", 9) not in la
    assert Bid("white", "C10", 9) not in la and Pass("white") not in la, "another player's bid is not red's"
    first = legal_actions(new_game(worked_example_setup()), BOARD)
    assert Pass("blue") not in first and len(first) == len(list(first)), "the first bid of a call cannot be a pass"
    assert list(NO_ACTIONS) == [] and len(NO_ACTIONS) == 0 and not NO_ACTIONS and Pass(None) not in NO_ACTIONS


def test_rulebook_example_gray_1_with_no_empty_neighborhood_next_to_it_wins_at_once():
    tokens = layout_with(4, fixed={"C09": "trendy"}, seed=5)
    s = new_game(setup_for(("gray", "blue", "red", "white"), tokens=tokens))
    s, _ = build(s, "blue", "C08")
    s, _ = build(s, "gray", "C10")
    assert s.setup.seats[s.to_act].color == "gray" and 1 in s.hands[0]
    moves = s.moves
    # "it is impossible for anyone to outbid (there is no empty neighborhood adjacent to it)"
    s = play(s, ("gray", "C09", 1))
    assert s.moves == moves + 1 and s.call == ()
    assert s.built["C09"].player == "gray" and s.built["C09"].value == 1
    # "The player turns the building over, takes the trendy neighborhood token, and starts a new turn"
    assert s.collected[0] == (1, 0, 0) and "C09" not in s.tokens
    assert s.start == 0 and s.to_act == 0
    assert set(s.auto_passed) == {1, 2, 3}


def test_a_start_bid_in_a_blind_alley_ends_the_call_at_once_once_its_way_out_is_built():
    s = play(new_game(setup_for(SEATS4)), ("blue", "C12", 7))
    assert s.call and legal_actions(s, BOARD).neighborhoods == {"C11"}  # C11 is still empty
    s, _ = build(new_game(setup_for(SEATS4)), "red", "C11")
    s = play(s, ("red", "C12", 7))
    assert s.built["C12"].player == "red" and s.to_act == 2 and s.call == ()


# --- The three ways a call ends --------------------------------------------------------------------

def test_call_ends_when_all_the_players_but_one_have_passed():
    s = play(new_game(setup_for(SEATS4)), ("blue", "C05", 2), ("gray",), ("red", "C06", 3), ("white",))
    assert s.call and legal_actions(s, BOARD).player == "blue"
    s = play(s, ("blue",))
    assert s.built["C06"].player == "red" and s.start == 2


def test_call_ends_when_the_last_bid_has_no_empty_adjacent_neighborhood():
    # "No one can place buildings because the most recently placed building has no adjacent neighborhood"
    s, _ = build(new_game(setup_for(SEATS4)), "blue", "C10")
    s = play(s, ("blue", "C08", 3))
    assert s.call and s.to_act == 1
    s = play(s, ("gray", "C09", 5))  # C09 touches C08 (bid) and C10 (built) only
    assert s.call == () and s.built["C09"].player == "gray" and s.to_act == 1


def test_call_ends_when_no_one_is_able_to_outbid():
    # "No one is able to outbid the most recently placed building": a 13 cannot be beaten.
    s = play(new_game(setup_for(SEATS4)), ("blue", "C05", 2), ("gray", "C04", 13))
    assert s.call == () and s.built["C04"].player == "gray" and s.to_act == 1
    assert s.auto_passed == (2, 3, 0)  # clockwise from Gray
    assert s.hands[0] == tuple(range(1, 14))


# --- Passing, automatic passes, turn order ---------------------------------------------------------

def test_a_player_who_passes_may_not_place_another_building_in_this_call():
    s = play(new_game(setup_for(SEATS4)), ("blue", "C05", 2), ("gray",), ("red", "C06", 3))
    refused(s, Bid("gray", "C07", 9), "already_passed", "gray passed and cannot act again in this call")
    refused(s, Pass("gray"), "already_passed", "gray passed and cannot act again in this call")
    s = play(s, ("white", "C07", 4), ("blue", "E01", 5))
    assert legal_actions(s, BOARD).player == "red"  # Gray is skipped
    s = play(s, ("red",), ("white",))
    # Next call: Gray acts again (it is Blue's to open; Gray follows).
    s = play(s, ("blue", "C11", 1))
    assert legal_actions(s, BOARD).player == "gray"


def test_start_player_cannot_pass_and_may_bid_any_value_anywhere_empty():
    s = new_game(setup_for(SEATS4, removed=()))
    refused(s, Pass("blue"), "start_cannot_pass", "blue cannot pass: the start player must open the call with a bid")
    la = legal_actions(s, BOARD)
    assert la.values == tuple(range(1, 14)) and la.neighborhoods == set(BOARD.neighborhoods) and not la.can_pass


def test_a_player_without_a_higher_building_passes_automatically():
    # "a player who has no buildings left (or no buildings with a sufficient value) must pass"
    colors = ("blue", "red", "white")
    s = new_game(setup_for(colors, removed=("west",)))
    for nb, v in (("C12", 13), ("N07", 12), ("E04", 11)):  # White builds its three tallest in blind alleys
        s, _ = build(s, "white", nb, v)
    s, _ = build(s, "blue", "C05")
    s = play(s, ("blue", "C04", 10))
    assert s.auto_passed == (2,) and 2 in s.passed and legal_actions(s, BOARD).player == "red"
    assert could_outbid(s) == ("red",)
    s2 = play(s, ("red",))
    assert s2.built["C04"].player == "blue"
    # White's pass is the rules' own: nobody sends it (a record may write it down: test_record_automatic_passes).
    refused(s, Pass("white"), "already_passed", "white passed and cannot act again in this call")
    refused(s2, Pass("white"), "not_your_turn", "white cannot act now: it is blue's turn")


def test_who_could_still_outbid_goes_round_the_table_from_the_last_bidder():
    """"Proceed clockwise": after Blue's bid and Red's pass, White then Gray may still outbid; nobody before the
    call's first bid, nobody once the game is over."""
    s = new_game(setup_for(SEATS4))
    assert could_outbid(s) == ()
    s = play(s, ("blue", "C01", 3))
    assert could_outbid(s) == ("gray", "red", "white")
    s = play(s, ("gray",))
    assert could_outbid(s) == ("red", "white")
    s = play(s, ("red", "C03", 4))
    assert could_outbid(s) == ("white", "blue")


def test_apply_refuses_every_automatic_pass_so_a_live_phone_cannot_send_one():
    s = play(new_game(setup_for(SEATS4)), ("blue", "C05", 13))  # Gray, Red and White pass automatically
    assert s.auto_passed == (1, 2, 3) and s.to_act == 0 and s.call == ()
    for color in ("gray", "red", "white"):
        refused(s, Pass(color), "not_your_turn", f"{color} cannot act now: it is blue's turn")
    s = play(s, ("blue", "C01", 1), ("gray", "C03", 12))  # Red and White hold 13s; Blue does not
    assert s.auto_passed == (0,) and s.to_act == 2
    refused(s, Pass("blue"), "already_passed", "blue passed and cannot act again in this call")


def test_the_winner_of_a_call_starts_the_next_one():
    s = new_game(setup_for(SEATS4))
    for color, nb in (("red", "C05"), ("white", "C01"), ("white", "C03"), ("blue", "E01"), ("gray", "S04")):
        s, _ = build(s, color, nb)
        assert s.start == s.to_act == s.seat(color) and s.last_call.player == color


# --- Tokens and special cards ----------------------------------------------------------------------

def card_setup():
    tokens = layout_with(2, ("north", "east"), fixed={
        "C01": "subway", "C03": "subway", "C05": "subway", "C11": "subway",
        "C13": "archaeological", "C14": "archaeological", "C15": "archaeological"}, seed=9)
    return setup_for(("blue", "red"), removed=("north", "east"), tokens=tokens)


def test_subway_card_goes_to_the_first_taker_and_moves_only_on_strictly_more_tokens():
    s = new_game(card_setup())
    s, _ = build(s, "blue", "C01")
    assert s.subway_card == 0 and s.last_call.subway_card == "blue" and s.collected[0] == (0, 1, 0)
    s, _ = build(s, "red", "C03")
    # "if two players have the same number of tokens, the card does not change hands"
    assert s.collected[1] == (0, 1, 0) and s.subway_card == 0 and s.last_call.subway_card is None
    s, _ = build(s, "red", "C05")
    # "until another player has earned more subway tokens. In such a case, the latter player takes the card"
    assert s.subway_card == 1 and s.last_call.subway_card == "red"
    s, _ = build(s, "blue", "C11")
    assert s.collected[0][1] == s.collected[1][1] == 2 and s.subway_card == 1 and s.last_call.subway_card is None


def test_archaeological_card_is_held_by_the_latest_taker():
    s = new_game(card_setup())
    assert s.archaeological_card is None
    s, _ = build(s, "red", "C13")
    assert s.archaeological_card == 1 and s.last_call.archaeological_card == "red"
    s, _ = build(s, "red", "C14")
    assert s.archaeological_card == 1 and s.last_call.archaeological_card is None and s.collected[1][2] == 2
    # "until another player gets an archaeological site token": fewer tokens do not matter
    s, _ = build(s, "blue", "C15")
    assert s.archaeological_card == 0 and s.last_call.archaeological_card == "blue" and s.collected[0][2] == 1
    assert s.subway_card is None


# --- The end of the game ---------------------------------------------------------------------------

SPOTS = ("C01", "C03", "C05", "C07", "C09", "C11", "C13", "C15", "S02", "S04", "S06", "S08", "S10")


def test_game_ends_as_soon_as_a_player_builds_the_13th_building_and_nothing_follows():
    s = new_game(setup_for(("blue", "red"), removed=("north", "west")))
    for i, nb in enumerate(SPOTS[:12], 1):
        s = play(s, ("blue", nb, i), ("red",))
        assert not s.finished and s.built_count == (i, 0)
    s = play(s, ("blue", SPOTS[12], 13))  # Red has nothing higher: automatic pass, call and game end
    assert s.finished and s.built_count == (13, 0) and s.to_act is None and s.hands[0] == ()
    la = legal_actions(s, BOARD)
    assert (la.player, len(la), bool(la)) == (None, 0, False)
    assert could_outbid(s) == ()
    # Nothing is taken after the end (Red's automatic pass may stand in a record: test_record_automatic_passes).
    refused(s, Pass("red"), "game_over", "the game is over: red cannot act any more")
    refused(s, Bid("red", "C02", 1), "game_over", "the game is over: red cannot act any more")
    refused(s, Bid("blue", "C02", 1), "game_over", "the game is over: blue cannot act any more")
    refused(s, Pass("blue"), "game_over", "the game is over: blue cannot act any more")


# --- Every illegal action, with its sentence -------------------------------------------------------

def mid_call():
    """Blue built C12 with its 13; then Blue 1 in C03, Gray 2 in C01, White 3 in C04; Red to act."""
    s = play(new_game(setup_for(("blue", "gray", "white", "red"))), ("blue", "C12", 13))
    return play(s, ("blue", "C03", 1), ("gray", "C01", 2), ("white", "C04", 3))


def test_record_example_not_adjacent_to_the_last_bid():
    # RECORD.md: "action 4: red cannot bid in C06: it is not adjacent to C04, the last bid"
    s = play(new_game(setup_for(("blue", "gray", "white", "red"))),
             ("blue", "C03", 1), ("gray", "C01", 2), ("white", "C04", 3))
    refused(s, Bid("red", "C06", 5), "not_adjacent", "red cannot bid in C06: it is not adjacent to C04, the last bid")


# "To outbid, a player must place one of his buildings ... in an orthogonally adjacent neighborhood ... Crossing
# bridges is allowed, but lakes and rivers are impassable." (rulebook-en, The call for proposal.) Two neighborhoods
# on the shore of one lake that no street joins are the pairs a table argues about: the refusal names the lake.
RAW = board_data()
JOINED = {frozenset((e["a"], e["b"])) for e in RAW["adjacencies"]}
LAKE_PAIRS = sorted({tuple(sorted((a, b))) for lake in RAW["lakes"] for a in lake["neighborhoods"]
                     for b in lake["neighborhoods"] if a != b and frozenset((a, b)) not in JOINED})


def test_the_pairs_a_lake_lies_between_are_the_board_datas_own():
    assert len(LAKE_PAIRS) == 34 and ("C04", "C09") in LAKE_PAIRS      # the "C04 is not next to C09"
    assert BOARD.across_water == {frozenset(p) for p in LAKE_PAIRS}
    assert not any(p in JOINED for p in BOARD.across_water)


@pytest.mark.parametrize("a, b", LAKE_PAIRS + [(b, a) for a, b in LAKE_PAIRS])
def test_lakes_are_impassable_an_outbid_across_a_lake_is_refused_with_the_lake_as_reason(a, b):
    s = play(new_game(setup_for(SEATS4)), ("blue", a, 1))
    refused(s, Bid("gray", b, 2), "across_water",
            f"gray cannot bid in {b}: a lake lies between it and {a}, the last bid, and lakes cannot be crossed")


@pytest.mark.parametrize("a, b", [("C09", "W01"), ("C04", "C06"), ("C06", "C10"), ("C03", "N05"), ("N01", "E10")])
def test_a_pair_with_no_lake_between_is_simply_not_adjacent(a, b):
    """A far pair, a pair with land between, "corner contact does not count" (C06/C10), a river pair with no bridge."""
    s = play(new_game(setup_for(SEATS4)), ("blue", a, 1))
    refused(s, Bid("gray", b, 2), "not_adjacent", f"gray cannot bid in {b}: it is not adjacent to {a}, the last bid")


@pytest.mark.parametrize("action, code, sentence", [
    (Bid("green", "C05", 5), "unknown_player", "green is not playing in this game"),
    (Pass("purple"), "unknown_player", "purple is not playing in this game"),
    (Bid("blue", "C05", 5), "not_your_turn", "blue cannot act now: it is red's turn"),
    (Pass("white"), "not_your_turn", "white cannot act now: it is red's turn"),
    (Bid("red", "C99", 5), "unknown_neighborhood", "red cannot bid in C99: there is no such neighborhood"),
    (Bid("red", "C12", 5), "already_built", "red cannot bid in C12: blue has already built there"),
    (Bid("red", "C03", 5), "already_bid", "red cannot bid in C03: blue already bid there in this call"),
    (Bid("red", "C01", 5), "already_bid", "red cannot bid in C01: gray already bid there in this call"),
    (Bid("red", "C05", 14), "bad_value", "red cannot bid 14: buildings are numbered 1 to 13"),
    (Bid("red", "C05", 0), "bad_value", "red cannot bid 0: buildings are numbered 1 to 13"),
    (Bid("red", "C05", 5.0), "bad_value", "red cannot bid 5.0: buildings are numbered 1 to 13"),
    (Bid("red", "C05", True), "bad_value", "red cannot bid True: buildings are numbered 1 to 13"),
    (Bid("red", "C05", 3), "too_low", "red cannot bid 3: it must be higher than 3, the last bid"),
    (Bid("red", "C05", 2), "too_low", "red cannot bid 2: it must be higher than 3, the last bid"),
    (Bid("red", "C06", 5), "not_adjacent", "red cannot bid in C06: it is not adjacent to C04, the last bid"),
    (Bid("red", "E01", 13), "not_adjacent", "red cannot bid in E01: it is not adjacent to C04, the last bid"),
])
def test_illegal_actions_are_refused_with_their_sentence_and_change_nothing(action, code, sentence):
    refused(mid_call(), action, code, sentence)


def test_a_building_already_built_or_already_on_the_board_cannot_be_bid():
    s = mid_call()
    s = play(s, ("red", "C05", 4), ("blue",), ("gray", "C06", 5))
    assert legal_actions(s, BOARD).player == "white"
    refused(s, Bid("white", "C07", 3), "value_on_board", "white cannot bid 3: that building is already on the board in this call")
    t = play(s, ("white",), ("red",))  # Gray builds C06 with 5, Gray starts
    refused(t, Bid("gray", "C07", 5), "value_built", "gray cannot bid 5: that building is already built")
    u = play(new_game(setup_for(("blue", "gray", "white", "red"))), ("blue", "C12", 13))
    refused(u, Bid("blue", "C03", 13), "value_built", "blue cannot bid 13: that building is already built")


def test_out_of_play_districts_cannot_be_bid_even_next_to_the_last_bid():
    s = new_game(setup_for(("blue", "gray", "red"), removed=("west",)))
    refused(s, Bid("blue", "W01", 3), "district_removed", "blue cannot bid in W01: the west district is not in play")
    assert not any(n.startswith("W") for n in legal_actions(s, BOARD).neighborhoods)
    s = play(s, ("blue", "C02", 3))  # C02 touches C03, C08 and, over a bridge, W05
    assert legal_actions(s, BOARD).neighborhoods == {"C03", "C08"}
    refused(s, Bid("gray", "W05", 5), "district_removed", "gray cannot bid in W05: the west district is not in play")


def test_something_that_is_neither_a_bid_nor_a_pass_is_refused_with_a_sentence():
    s = mid_call()
    for junk in ("red bids", None, {"player": "red", "pass": True}):
        with pytest.raises(RuleError) as e:
            apply(s, junk, BOARD)
        assert e.value.code == "bad_action" and "neither a bid nor a pass" in e.value.sentence
    with pytest.raises(RuleError) as e:
        apply(s, Bid("red", ["C05"], 5), BOARD)
    assert e.value.code == "unknown_neighborhood"


def test_a_built_value_is_named_built_even_while_the_player_has_another_bid_on_the_board():
    """The sentence names where the building is: built ("The building will remain there until the end of the game")
    or on the board in this call, whatever else the player has bid in this call."""
    s = new_game(setup_for(("blue", "gray", "white", "red")))
    s = play(s, ("blue", "C12", 13))          # nobody can outbid a 13: blue builds it and starts again
    s = play(s, ("blue", "C08", 3), ("gray", "C09", 7), ("white",), ("red",))
    assert legal_actions(s, BOARD).player == "blue" and [b.player for b in s.call] == ["blue", "gray"]
    refused(s, Bid("blue", "C10", 13), "value_built", "blue cannot bid 13: that building is already built")


def test_a_single_legal_bid_is_still_something_to_do():
    """"The first player chooses one of his buildings (of any value) and places it": one building left and one
    empty neighborhood is one bid, and the player has it to make."""
    only = LegalActions("blue", frozenset({"C01"}), (13,), False)
    assert bool(only) and len(only) == 1 and list(only) == [Bid("blue", "C01", 13)]


def test_each_decision_counts_one_move_whether_or_not_it_ends_the_call():
    """A bid and a pass are one decision each ("players may either Outbid or Pass"); automatic passes are none."""
    s = new_game(worked_example_setup())
    for n, move in enumerate([("blue", "C08", 3), ("gray", "C09", 7), ("red", "C10", 9), ("white", "C04", 10),
                              ("blue",), ("gray",), ("red", "C01", 11), ("white",)], 1):
        s = play(s, move)
        assert s.moves == n, move
    assert s.call == () and s.last_call.player == "red"


def test_the_first_seat_starts_the_first_call_and_the_winner_the_next():
    """RECORD.md: "the first starts the first call for proposal"; rulebook: "the player who has just won the call for
    proposal becomes the new start player"."""
    s = new_game(worked_example_setup())
    assert (s.start, s.to_act) == (0, 0)
    s = play(s, ("blue", "C08", 3), ("gray", "C09", 7), ("red",), ("white",), ("blue",))
    assert s.last_call.player == "gray" and (s.start, s.to_act) == (1, 1)


def test_a_player_that_is_not_a_colour_name_is_refused_with_a_sentence():
    s = new_game(worked_example_setup())
    e = refused(s, Pass(["blue"]), "unknown_player", "['blue'] is not playing in this game")
    assert e.params == {"player": ["blue"]}


def test_the_first_decision_of_a_fresh_process_finds_the_districts_in_play(monkeypatch):
    """Nothing remembered yet (rules._IN_PLAY empty, as in a server just started): the first call's bids may go in
    every neighborhood of the districts in play, and no other; "one of the peripheral districts is not used"."""
    from companion.game import rules
    monkeypatch.setattr(rules, "_IN_PLAY", {})
    s = new_game(setup_for(("blue", "gray", "red"), removed=("west",)))
    assert legal_actions(s, BOARD).neighborhoods == {nb for nb in BOARD.neighborhoods if not nb.startswith("W")}
    assert legal_actions(s, BOARD).neighborhoods == BOARD.in_play({"west"})   # and again, remembered
