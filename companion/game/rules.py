"""The call for proposal: who acts, what is legal, and what each decision does to the state."""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Iterator, Optional

from .board import Board, load_board
from .errors import RuleError
from .state import VALUES, Action, Bid, Building, CallResult, Pass, Setup, State

_TOKEN_INDEX = {"trendy": 0, "subway": 1, "archaeological": 2}


@dataclass(frozen=True)
class LegalActions:
    """What the player to act may do: any listed neighborhood with any listed value, or pass."""

    player: Optional[str]
    neighborhoods: frozenset[str]
    values: tuple[int, ...]
    can_pass: bool

    def __contains__(self, action: Action) -> bool:
        if action.player != self.player:
            return False
        if isinstance(action, Pass):
            return self.can_pass
        return action.neighborhood in self.neighborhoods and action.value in self.values

    def __iter__(self) -> Iterator[Action]:
        for nb in sorted(self.neighborhoods):
            for v in self.values:
                yield Bid(self.player, nb, v)
        if self.can_pass:
            yield Pass(self.player)

    def __len__(self) -> int:
        return len(self.neighborhoods) * len(self.values) + self.can_pass

    def __bool__(self) -> bool:
        return len(self) > 0


NO_ACTIONS = LegalActions(None, frozenset(), (), False)


def new_game(setup: Setup) -> State:
    """The state before the first bid: full hands, tokens laid, the first seat starts."""
    n = len(setup.seats)
    return State(
        setup=setup,
        hands=(VALUES,) * n,
        built=MappingProxyType({}),
        built_count=(0,) * n,
        tokens=MappingProxyType(dict(setup.tokens)),
        collected=((0, 0, 0),) * n,
        subway_card=None,
        archaeological_card=None,
        start=0,
        to_act=0,
        _seat=MappingProxyType({s.color: i for i, s in enumerate(setup.seats)}),
    )


def _replace(state: State, **changes) -> State:
    """A changed copy; dataclasses.replace re-runs __init__ and was most of a decision's cost."""
    new = object.__new__(State)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


_IN_PLAY: dict = {}


def _in_play(board: Board, removed: frozenset[str]) -> frozenset[str]:
    """board.in_play, remembered: a table only ever has one set of districts out."""
    key = (id(board), removed)
    found = _IN_PLAY.get(key)
    if found is None:
        found = _IN_PLAY[key] = board.in_play(removed)
    return found


def _empty(state: State, board: Board) -> frozenset[str]:
    """Neighborhoods in play with no building and no bid of this call."""
    return _in_play(board, state.setup.removed_districts).difference(
        state.built, [b.neighborhood for b in state.call])


def _open_next_to(state: State, board: Board, nb: str) -> frozenset[str]:
    """Where the next outbid may go: empty, in play, adjacent to `nb` (bridges count)."""
    removed = state.setup.removed_districts
    taken = {b.neighborhood for b in state.call}
    return frozenset(
        n for n in board.neighborhoods[nb].neighbors
        if n not in state.built and n not in taken and board.neighborhoods[n].district not in removed
    )


def legal_actions(state: State, board: Optional[Board] = None) -> LegalActions:
    """The exact set of decisions open to the player whose turn it is."""
    if state.finished or state.to_act is None:
        return NO_ACTIONS
    board = board or load_board()
    p = state.to_act
    player = state.setup.seats[p].color
    hand = state.hands[p]
    if not state.call:
        return LegalActions(player, _empty(state, board), hand, False)
    last = state.call[-1]
    return LegalActions(
        player, _open_next_to(state, board, last.neighborhood),
        tuple(v for v in hand if v > last.value), True,
    )


def could_outbid(state: State) -> tuple[str, ...]:
    """Players still in this call who hold a building high enough to outbid (public: values stand face up)."""
    if state.finished or not state.call:
        return ()
    last = state.seat(state.call[-1].player)
    n = len(state.setup.seats)
    order = [(last + k) % n for k in range(1, n)]
    return tuple(state.setup.seats[s].color for s in order if s not in state.passed)


def apply(state: State, action: Action, board: Optional[Board] = None) -> State:
    """The state after `action`; raises RuleError (and changes nothing) when the rules forbid it."""
    # Only the player to act acts: an automatic pass is the rules' own, not an action (a record may
    # still write one down; record.replay reads those, so a live phone can never send one).
    board = board or load_board()
    if not isinstance(action, (Bid, Pass)):
        raise RuleError("bad_action", detail=f"{action!r} is neither a bid nor a pass")
    p = state.seat_of(action.player) if isinstance(action.player, str) else None
    if p is None:
        raise RuleError("unknown_player", player=action.player)
    if state.finished:
        raise RuleError("game_over", player=action.player)
    if p != state.to_act:
        if p in state.passed:
            raise RuleError("already_passed", player=action.player)
        raise RuleError("not_your_turn", player=action.player, to_act=state.setup.seats[state.to_act].color)
    if isinstance(action, Pass):
        if not state.call:
            raise RuleError("start_cannot_pass", player=action.player)
        return _advance(_replace(state, passed=state.passed | {p}), p, board)
    _check_bid(state, p, action, board)
    hands = list(state.hands)
    hands[p] = tuple(v for v in hands[p] if v != action.value)
    return _advance(_replace(state, hands=tuple(hands), call=state.call + (action,)), p, board)


def _check_bid(state: State, p: int, bid: Bid, board: Board) -> None:
    who, nb, value = bid.player, bid.neighborhood, bid.value
    hood = board.neighborhoods.get(nb) if isinstance(nb, str) else None
    if hood is None:
        raise RuleError("unknown_neighborhood", player=who, neighborhood=nb)
    if hood.district in state.setup.removed_districts:
        raise RuleError("district_removed", player=who, neighborhood=nb, district=hood.district)
    if nb in state.built:
        raise RuleError("already_built", player=who, neighborhood=nb, owner=state.built[nb].player)
    for earlier in state.call:
        if earlier.neighborhood == nb:
            raise RuleError("already_bid", player=who, neighborhood=nb, owner=earlier.player)
    if type(value) is not int or value not in VALUES:
        raise RuleError("bad_value", player=who, value=value)
    if value not in state.hands[p]:
        on_board = any(b.player == who and b.value == value for b in state.call)
        raise RuleError("value_on_board" if on_board else "value_built", player=who, value=value)
    if state.call:
        last = state.call[-1]
        if value <= last.value:
            raise RuleError("too_low", player=who, value=value, last_value=last.value)
        if nb not in board.neighborhoods[last.neighborhood].neighbors:
            code = "across_water" if board.water_between(nb, last.neighborhood) else "not_adjacent"
            raise RuleError(code, player=who, neighborhood=nb, last=last.neighborhood)


def _advance(state: State, actor: int, board: Board) -> State:
    """Pass those who can no longer bid, then hand the turn on or end the call."""
    last = state.call[-1]
    leader = state.seat(last.player)
    n = len(state.setup.seats)
    room = bool(_open_next_to(state, board, last.neighborhood))
    passed = set(state.passed)
    auto = []
    for k in range(1, n):
        s = (actor + k) % n
        if s == leader or s in passed:
            continue
        hand = state.hands[s]
        if not room or not hand or hand[-1] <= last.value:
            passed.add(s)
            auto.append(s)
    for k in range(1, n):
        s = (actor + k) % n
        if s != leader and s not in passed:
            return _replace(state, passed=frozenset(passed), auto_passed=tuple(auto), to_act=s,
                           moves=state.moves + 1)
    return _end_call(_replace(state, auto_passed=tuple(auto), moves=state.moves + 1), leader, board)


def _end_call(state: State, winner: int, board: Board) -> State:
    """The last bidder builds; everyone takes back the rest; tokens and special cards move."""
    win = state.call[-1]
    hands = [list(h) for h in state.hands]
    for b in state.call[:-1]:
        hands[state.seat(b.player)].append(b.value)
    built = dict(state.built)
    built[win.neighborhood] = Building(win.player, win.neighborhood, win.value)
    built_count = list(state.built_count)
    built_count[winner] += 1
    tokens, collected = state.tokens, state.collected
    subway_card, arch_card = state.subway_card, state.archaeological_card
    token = tokens.get(win.neighborhood)
    subway_to = arch_to = None
    if token:
        tokens = dict(tokens)
        del tokens[win.neighborhood]
        tokens = MappingProxyType(tokens)
        counts = list(collected[winner])
        counts[_TOKEN_INDEX[token]] += 1
        collected = collected[:winner] + (tuple(counts),) + collected[winner + 1:]
        if token == "subway":
            # Moves only to a player with strictly more subway tokens than its holder.
            if subway_card is None or (subway_card != winner and counts[1] > collected[subway_card][1]):
                subway_card = winner
                subway_to = win.player
        elif token == "archaeological":
            if arch_card != winner:
                arch_to = win.player
            arch_card = winner
    finished = built_count[winner] == len(VALUES)
    return _replace(
        state,
        hands=tuple(tuple(sorted(h)) for h in hands),
        built=MappingProxyType(built),
        built_count=tuple(built_count),
        tokens=tokens,
        collected=collected,
        subway_card=subway_card,
        archaeological_card=arch_card,
        start=winner,
        call=(),
        passed=frozenset(),
        to_act=None if finished else winner,
        last_call=CallResult(win.player, win.neighborhood, win.value, token, subway_to, arch_to),
        finished=finished,
    )
