"""Hypothesis plays whole games with every bid and pass anyone might send: the rules hold, and failures shrink."""
from collections import Counter
import random

from hypothesis import HealthCheck, event, given, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from games import BOARD, RAW, TWO_PLAYER_PAIRS, brute_area, position, random_game, setup_for

from companion.game import RuleError, apply, legal_actions
from companion.game.board import PERIPHERAL
from companion.game.errors import MESSAGES
from companion.game.record import replay, to_record
from companion.game.rules import new_game
from companion.game.scoring import area_groups, explain
from companion.game.state import COLORS, EXPERT_AREAS, MODES, Bid, Building, Pass

# Deterministic in CI and nothing written into the repository.
FIXED = dict(derandomize=True, database=None, deadline=None, print_blob=False)

IDS = sorted(BOARD.neighborhoods)
UNKNOWN = "X99"  # no such neighborhood
ADJ = {n["id"]: frozenset(n["neighbors"]) for n in RAW["neighborhoods"]}
DISTRICT = {n["id"]: n["district"] for n in RAW["neighborhoods"]}
KINDS = ("trendy", "subway", "archaeological")
# "3 prestige points" per trendy token, "1" per subway token, "3" for the subway card,
# "loses 1" per archaeological site token, "loses 2" for its card.
TOKEN_POINTS = {"trendy": 3, "subway": 1, "subway_card": 3, "archaeological": -1, "archaeological_card": -2}
AREA_POINTS = {"bridges": 4, "statues": 7, "lakes": 5, "districts": 4, "chains": 4}  # printed on the Expert cards
# Made once: Hypothesis labels each new strategy object anew, a good part of a step's cost when made per draw.
ANY_NEIGHBORHOOD, NO_NEIGHBORHOOD, ANY_VALUE = st.sampled_from(IDS), st.just(UNKNOWN), st.integers(0, 14)


@st.composite
def setups(draw):
    """Any legal table, every choice drawn by Hypothesis so that it shrinks (to 2 players, family, seed 0)."""
    n = draw(st.integers(2, 4), label="players")
    colors = draw(st.permutations(COLORS), label="colors")[:n]
    mode = draw(st.sampled_from(MODES), label="mode")
    if n == 4:
        removed = ()
    elif n == 3:
        removed = (draw(st.sampled_from(PERIPHERAL), label="removed"),)
    else:
        removed = draw(st.sampled_from(TWO_PLAYER_PAIRS), label="removed")
    seed = draw(st.integers(0, 2**32 - 1), label="cards and layout seed")
    return setup_for(colors, mode=mode, removed=removed, seed=seed)


def snapshot(state):
    """Every field as plain data, to prove a refused action left nothing changed (mappings included)."""
    return (state.setup, state.hands, dict(state.built), state.built_count, dict(state.tokens), state.collected,
            state.subway_card, state.archaeological_card, state.start, state.call, state.passed,
            state.auto_passed, state.to_act, state.last_call, state.finished, state.moves)


def in_play(state):
    return {nb for nb, d in DISTRICT.items() if d not in state.setup.removed_districts}


def expected_legal(state):
    """The rulebook's options, derived from the raw board: (neighborhoods, values) for the player to act.

    "places it in one of the neighborhoods which is not occupied by another building"; to outbid, "a building
    of a higher value than the one which has just been placed" in an "adjacent" neighborhood, "unoccupied"."""
    empty = in_play(state) - set(state.built) - {b.neighborhood for b in state.call}
    hand = set(state.hands[state.to_act])
    if not state.call:
        return empty, hand
    last = state.call[-1]
    return empty & ADJ[last.neighborhood], {v for v in hand if v > last.value}


class Table(RuleBasedStateMachine):
    """One game: the actions Hypothesis sends, the ones the rules accepted, and what the test knows independently."""

    @initialize(setup=setups())
    def sit_down(self, setup):
        self.setup = setup
        self.n = len(setup.seats)
        self.state = new_game(setup)
        self.accepted = []          # the record: every accepted action, written automatic passes included
        self.pending = []           # seats the last action passed automatically, not yet written down
        self.reached = [{} for _ in range(self.n)]  # seat -> {subway count: when it got there}
        self.latest_arch = None     # seat that most recently got an archaeological token
        self.replayed_at = -1
        self.auto_recorded = 0
        self.anyone_ = st.one_of(st.sampled_from(self.setup.colors), st.sampled_from(COLORS + ("green",)))
        self.held = {}              # invariant -> (the state, the record's length) it last held for

    # --- the actions --------------------------------------------------------------------------------

    def anyone(self):
        """A colour at the table, now and then one that is not."""
        return self.anyone_

    @rule(data=st.data())
    def bid(self, data):
        """Any bid: any player, any neighborhood (removed, built, unknown ones too), any value 0..14."""
        la = legal_actions(self.state, BOARD)
        player = data.draw(self.anyone(), label="player")
        hoods = [ANY_NEIGHBORHOOD, NO_NEIGHBORHOOD]
        if la.neighborhoods:
            hoods.insert(0, st.sampled_from(sorted(la.neighborhoods)))  # so that some bids are legal
        nb = data.draw(st.one_of(hoods), label="neighborhood")
        values = [ANY_VALUE] + ([st.sampled_from(la.values)] if la.values else [])
        value = data.draw(st.one_of(values), label="value")
        self.send(Bid(player, nb, value))

    @rule(data=st.data())
    def pass_(self, data):
        """A pass by anyone."""
        self.send(Pass(data.draw(self.anyone(), label="player")))

    @precondition(lambda self: self.pending)
    @rule(data=st.data())
    def write_down_automatic_pass(self, data):
        """A record may write down an automatic pass, right after the action that caused it (RECORD.md);
        the table never takes one: only the player to act acts."""
        seat = data.draw(st.sampled_from(self.pending), label="auto-passed seat")
        action = Pass(self.setup.colors[seat])
        snap = snapshot(self.state)
        try:
            apply(self.state, action, BOARD)
        except RuleError as e:
            assert e.code in ("already_passed", "not_your_turn", "game_over"), e.code
        else:
            raise AssertionError(f"{action} is automatic, yet apply took it")
        assert snapshot(self.state) == snap
        # Nothing happens at the table: only the pass is written down, and the passes before it are spent.
        self.pending = self.pending[self.pending.index(seat) + 1:]
        self.accepted.append(action)
        self.auto_recorded += 1

    @precondition(lambda self: not self.state.finished)
    @rule(data=st.data())
    def play(self, data):
        """A legal decision, mostly a pass when one is allowed, so that games reach their end."""
        la = legal_actions(self.state, BOARD)
        if la.can_pass and data.draw(st.integers(0, 3), label="pass?") > 0:
            self.send(Pass(la.player))
        else:
            self.send(data.draw(st.sampled_from([a for a in la if isinstance(a, Bid)]), label="bid"))

    # --- what each action must do -------------------------------------------------------------------

    def send(self, action):
        before = self.state
        snap = snapshot(before)
        legal = action in legal_actions(before, BOARD)
        try:
            after = apply(before, action, BOARD)
        except RuleError as e:
            # "Bad input gets a clear sentence and changes nothing."
            assert not legal, f"{action} is legal but was refused: {e.sentence}"
            assert e.code in MESSAGES and isinstance(e.sentence, str) and e.sentence.strip()
            assert snapshot(before) == snap
            return
        assert legal, f"{action} was accepted but is not legal"
        assert snapshot(before) == snap, "apply changed the state it was given"
        assert after.moves == before.moves + 1
        self.follow(before, action, after)
        self.state = after
        self.accepted.append(action)

    def follow(self, before, action, after):
        """Check a regular decision's effect against the rulebook, computed from the raw board."""
        p = before.to_act
        call = before.call + ((action,) if isinstance(action, Bid) else ())
        hands = [list(h) for h in before.hands]
        if isinstance(action, Bid):
            hands[p].remove(action.value)
        passed = before.passed | ({p} if isinstance(action, Pass) else set())
        last = call[-1]
        leader = before.seat(last.player)
        taken = set(before.built) | {b.neighborhood for b in call}
        room = bool(ADJ[last.neighborhood] & in_play(before) - taken)
        order = [(p + k) % self.n for k in range(1, self.n)]
        # "a player who has no buildings left (or no buildings with a sufficient value) must pass";
        # "No one can place buildings because the most recently placed building has no adjacent neighborhood".
        auto = [s for s in order if s != leader and s not in passed
                and (not room or max(hands[s], default=0) <= last.value)]
        still = [s for s in order if s != leader and s not in passed and s not in auto]
        assert after.auto_passed == tuple(auto), (after.auto_passed, auto)
        self.pending = auto
        if still:
            # "Then, playing clockwise, players may either Outbid or Pass."
            assert (after.to_act, after.call, after.passed) == (still[0], call, passed | set(auto))
            assert dict(after.built) == dict(before.built)
            return
        # "the player who placed the last building (the last bid) wins the call for proposal and actually builds".
        assert after.call == () and after.passed == frozenset()
        assert dict(after.built) == {**before.built, last.neighborhood: Building(last.player, last.neighborhood,
                                                                                   last.value)}
        # "All the players take their unbuilt buildings ... back."
        for b in call[:-1]:
            hands[before.seat(b.player)].append(b.value)
        assert [sorted(h) for h in after.hands] == [sorted(h) for h in hands]
        # "the player who has just won the call for proposal becomes the new start player"
        assert after.start == leader and after.to_act == (None if after.finished else leader)
        assert (after.last_call.player, after.last_call.neighborhood, after.last_call.value) == (
            last.player, last.neighborhood, last.value)
        token = self.setup.tokens.get(last.neighborhood)
        assert after.last_call.token == token
        if token == "subway":
            self.reached[leader][after.collected[leader][1]] = len(self.accepted)
        elif token == "archaeological":
            self.latest_arch = leader

    # --- after every step ---------------------------------------------------------------------------

    def held_already(self, name):
        """Whether invariant `name` was checked on this very state and record. Most steps are refused actions (over
        half of all steps come after the game's end), which change nothing (send checks every field is as it was);
        these invariants read only the state and what changes with the record, so checking them again proves nothing."""
        last = self.held.get(name)
        if last is not None and last[0] is self.state and last[1] == len(self.accepted):
            return True
        self.held[name] = (self.state, len(self.accepted))
        return False

    @invariant()
    def thirteen_buildings_each(self):
        if self.held_already("thirteen_buildings_each"):
            return
        # "Each player chooses a color and takes the corresponding 13 buildings."
        s = self.state
        for i, color in enumerate(self.setup.colors):
            built = [b.value for b in s.built.values() if b.player == color]
            bid = [b.value for b in s.call if b.player == color]
            assert sorted(built + list(s.hands[i]) + bid) == list(range(1, 14)), color
            assert s.built_count[i] == len(built)
        assert all(DISTRICT[nb] not in self.setup.removed_districts for nb in s.built)

    @invariant()
    def tokens_go_to_whoever_builds_on_them(self):
        if self.held_already("tokens_go_to_whoever_builds_on_them"):
            return
        # "If there is a token on the neighborhood where the building has been placed, the player takes it."
        s = self.state
        assert dict(s.tokens) == {nb: k for nb, k in self.setup.tokens.items() if nb not in s.built}
        for i, color in enumerate(self.setup.colors):
            got = Counter(self.setup.tokens[nb] for nb, b in s.built.items()
                          if b.player == color and nb in self.setup.tokens)
            assert s.collected[i] == tuple(got[k] for k in KINDS), color
        initial = Counter(self.setup.tokens.values())
        for k, kind in enumerate(KINDS):
            assert sum(1 for t in s.tokens.values() if t == kind) + sum(c[k] for c in s.collected) == initial[kind]

    @invariant()
    def only_the_player_to_act_has_moves(self):
        if self.held_already("only_the_player_to_act_has_moves"):
            return
        s = self.state
        la = legal_actions(s, BOARD)
        if s.finished:
            assert s.to_act is None and not la and la.player is None
        else:
            assert la.player == self.setup.colors[s.to_act] and s.to_act not in s.passed
            nbs, values = expected_legal(s)
            assert (la.neighborhoods, set(la.values), la.can_pass) == (nbs, values, bool(s.call))
            # Whoever is asked holds a legal bid: those without one passed automatically.
            assert nbs and values
        probe = next(iter(la), None)
        for seat, color in enumerate(self.setup.colors):
            if seat == s.to_act:
                continue
            tries = [Bid(color, probe.neighborhood, probe.value)] if isinstance(probe, Bid) else []
            tries += [Pass(color)]  # automatic passes too: the rules made them, nobody sends them
            for a in tries:
                try:
                    apply(s, a, BOARD)
                except RuleError as e:
                    assert e.sentence.strip()
                else:
                    raise AssertionError(f"{a} was accepted though it is {s.to_act_color}'s turn")

    @invariant()
    def automatic_passes_are_the_ones_still_to_write_down(self):
        made = self.state.auto_passed
        assert made[len(made) - len(self.pending):] == tuple(self.pending)

    @invariant()
    def subway_card_most_tokens_first_there_keeps_it_on_a_tie(self):
        if self.held_already("subway_card_most_tokens_first_there_keeps_it_on_a_tie"):
            return
        # "The player takes the card and keeps it ... until another player has earned more subway tokens."
        # "NB: if two players have the same number of tokens, the card does not change hands."
        counts = [c[1] for c in self.state.collected]
        top = max(counts)
        if top == 0:
            assert self.state.subway_card is None
            return
        holder = self.state.subway_card
        assert holder is not None and counts[holder] == top
        first = min((s for s in range(self.n) if counts[s] == top), key=lambda s: self.reached[s][top])
        assert holder == first, (counts, holder, first)

    @invariant()
    def archaeological_card_with_the_latest_to_get_a_site(self):
        # "taken and held by the latest player who gets one of these tokens"
        holder = self.state.archaeological_card
        assert holder == self.latest_arch
        if holder is not None:
            assert self.state.collected[holder][2] >= 1

    @invariant()
    def game_ends_with_a_thirteenth_building(self):
        # "The game ends as soon as any player has built his last building."
        assert self.state.finished == (max(self.state.built_count) == 13)

    @invariant()
    def the_record_replays_to_the_same_state(self):
        if self.replayed_at == len(self.accepted):
            return
        assert replay(to_record(self.setup, self.accepted), BOARD) == self.state
        self.replayed_at = len(self.accepted)

    def teardown(self):
        # Seen with --hypothesis-show-statistics: how many runs reach the end of a game.
        event("game over" if self.state.finished else "game under way")
        event("automatic passes written down", self.auto_recorded > 0)

Table.TestCase.settings = settings(
    max_examples=60, stateful_step_count=600, suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example], **FIXED)
TestTable = Table.TestCase


# --- Expert area cards against brute force ----------------------------------------------------------

@st.composite
def clumps(draw):
    """A connected clump grown one neighbour at a time: the dense shapes where counting goes wrong."""
    size = draw(st.integers(1, 13))
    mine = [draw(st.sampled_from(IDS))]
    while len(mine) < size:
        frontier = sorted(set().union(*(ADJ[x] for x in mine)) - set(mine))
        if not frontier:
            break
        mine.append(draw(st.sampled_from(frontier)))
    return set(mine)


LAKES = [tuple(x["neighborhoods"]) for x in RAW["lakes"]]
FEATURES = [tuple(x["neighborhoods"]) for x in RAW["statues"]] + [
    (e["a"], e["b"]) for e in RAW["adjacencies"] if e["bridge"]]


@st.composite
def around_features(draw):
    """Whole lakes, then statues and bridges, taken together: where one building could serve two groups."""
    mine = set()
    lakes = draw(st.sets(st.sampled_from(LAKES), max_size=3), label="lakes")
    for feature in sorted(lakes) + draw(st.lists(st.sampled_from(FEATURES), max_size=4), label="features"):
        if len(mine | set(feature)) <= 13:
            mine |= set(feature)
    return mine | draw(st.sets(st.sampled_from(IDS), max_size=13 - len(mine)), label="more")


@settings(max_examples=400, **FIXED)
@given(mine=st.one_of(st.sets(st.sampled_from(IDS), max_size=13), clumps(), around_features()))
def test_expert_area_groups_equal_brute_force(mine):
    # Expert area cards count "the most disjoint groups the player's buildings can form" (RECORD.md).
    for card in EXPERT_AREAS:
        assert area_groups(BOARD, card, set(mine)) == brute_area(card, mine), (card, sorted(mine))


# --- Scores of random finished games ----------------------------------------------------------------

@settings(max_examples=200, **FIXED)
@given(setup=setups(), seed=st.integers(0, 2**32 - 1))
def test_final_scores_add_up_and_name_the_winners(setup, seed):
    _, _, states = random_game(random.Random(seed), setup)
    final = states[-1]
    assert final.finished
    info = explain(final, BOARD)
    scores = info["scores"]
    assert scores["finished"] is True and list(scores["players"]) == list(setup.colors)
    for i, seat in enumerate(setup.seats):
        p = scores["players"][seat.color]
        b = p["breakdown"]
        assert p["total"] == sum(b.values()) and len(b) == 8
        assert p["buildings"] == sum(1 for x in final.built.values() if x.player == seat.color)
        trendy, subway, arch = final.collected[i]
        assert (b["trendy"], b["subway"], b["archaeological"]) == (
            trendy * TOKEN_POINTS["trendy"], subway * TOKEN_POINTS["subway"],
            arch * TOKEN_POINTS["archaeological"])
        assert b["subway_card"] == (TOKEN_POINTS["subway_card"] if final.subway_card == i else 0)
        assert b["archaeological_card"] == (TOKEN_POINTS["archaeological_card"]
                                            if final.archaeological_card == i else 0)
        if setup.mode == "expert":
            mine = {nb for nb, x in final.built.items() if x.player == seat.color}
            assert b["area"] == AREA_POINTS[seat.area] * brute_area(seat.area, mine)
    check_winners(final, scores)


def check_winners(state, scores):
    # "The player with the most prestige points wins the game. In case of tie, the tied player who has
    # constructed the most buildings wins. In case of a new tie, the tied players share the victory."
    players = scores["players"]
    best = max(p["total"] for p in players.values())
    tied = [c for c in state.setup.colors if players[c]["total"] == best]
    most = max(players[c]["buildings"] for c in tied)
    assert scores["winners"] == [c for c in tied if players[c]["buildings"] == most]
    # Nobody left out has as many points and as many buildings as a winner.
    w = players[scores["winners"][0]]
    for c in state.setup.colors:
        if c not in scores["winners"]:
            assert (players[c]["total"], players[c]["buildings"]) < (w["total"], w["buildings"])


@st.composite
def small_positions(draw):
    """A finished table with a few buildings and tokens each: small totals, so ties on points are common."""
    setup = draw(setups())
    colors = setup.colors
    spots = sorted(in_play(new_game(setup)))
    where = draw(st.lists(st.tuples(st.sampled_from(spots), st.sampled_from(colors)), max_size=8,
                          unique_by=lambda t: t[0]), label="buildings")
    values = {c: iter(range(1, 14)) for c in colors}
    buildings = {nb: (c, next(values[c])) for nb, c in where}
    collected = {c: draw(st.tuples(*[st.integers(0, 2)] * 3), label=f"{c} tokens") for c in colors}
    holder = st.one_of(st.none(), st.sampled_from(colors))
    return position(setup, buildings, collected=collected, subway_card=draw(holder, label="subway card"),
                    archaeological_card=draw(holder, label="archaeological card"))


@settings(max_examples=300, **FIXED)
@given(state=small_positions())
def test_winners_most_points_then_most_buildings_then_shared(state):
    scores = explain(state, BOARD)["scores"]
    for p in scores["players"].values():
        assert p["total"] == sum(p["breakdown"].values())
    check_winners(state, scores)
