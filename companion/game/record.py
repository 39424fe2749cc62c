"""The game record (RECORD.md, format 1): a whole game as one JSON document, checked and replayed."""
from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional

from .board import Board, load_board
from .errors import RuleError
from .rules import apply, new_game
from .state import Action, Bid, Pass, Seat, Setup, State
from .setup import make_setup

FORMAT = "metropolys-record/1"


class RecordError(ValueError):
    """A bad record: `where` is 'setup' or 'action N' (1-based), as `companion score` prints it."""

    def __init__(self, where: str, error: RuleError):
        self.where = where
        self.error = error
        super().__init__(f"{where}: {error.sentence}")


def _bad(detail: str) -> RuleError:
    return RuleError("bad_record", detail=detail)


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise _bad(f"{what} must be a string, not {value!r}")
    return value


def parse_setup(doc: Any, board: Optional[Board] = None) -> Setup:
    """The setup half of a record; raises RuleError with the first thing wrong."""
    if not isinstance(doc, dict):
        raise _bad("a record is a JSON object")
    if doc.get("format") != FORMAT:
        raise _bad(f"the format must be {FORMAT!r}, not {doc.get('format')!r}")
    players = doc.get("players")
    if not isinstance(players, list):
        raise _bad("players must be a list")
    seats = []
    for i, p in enumerate(players, 1):
        if not isinstance(p, dict):
            raise _bad(f"player {i} must be an object")
        name = p.get("name") or ""
        area = p.get("area")
        hood = p.get("neighborhood")
        seats.append(Seat(
            color=_text(p.get("color"), f"player {i}'s color"),
            name=_text(name, f"player {i}'s name"),
            area=None if area is None else _text(area, f"player {i}'s area card"),
            neighborhood=None if hood is None else _text(hood, f"player {i}'s neighborhood card"),
        ))
    removed = doc.get("removed_districts") or []
    if not isinstance(removed, list):
        raise _bad("removed_districts must be a list")
    removed = [_text(d, "a removed district") for d in removed]
    tokens = doc.get("tokens")
    if not isinstance(tokens, dict):
        raise _bad("tokens must be an object from neighborhood to token kind")
    for nb, kind in tokens.items():
        _text(kind, f"the token on {nb}")
    mode = doc.get("mode")
    return make_setup(mode if isinstance(mode, str) else repr(mode), seats, removed, tokens, board)


def parse_action(raw: Any) -> Action:
    """One recorded decision: {"player", "bid", "value"} or {"player", "pass": true}."""
    if not isinstance(raw, dict):
        raise _bad("an action must be an object")
    player = _text(raw.get("player"), "the acting player")
    if raw.get("pass") is True and "bid" not in raw:
        if set(raw) - {"player", "pass"}:
            raise _bad(f"a pass has no {sorted(set(raw) - {'player', 'pass'})[0]}")
        return Pass(player)
    if "bid" in raw and "pass" not in raw:
        if set(raw) - {"player", "bid", "value"}:
            raise _bad(f"a bid has no {sorted(set(raw) - {'player', 'bid', 'value'})[0]}")
        nb = _text(raw["bid"], "the neighborhood of a bid")
        value = raw.get("value")
        if type(value) is not int:
            raise _bad(f"{player}'s bid needs a whole-number value, not {value!r}")
        return Bid(player, nb, value)
    raise _bad('an action is either {"player", "bid", "value"} or {"player", "pass": true}')


class _WrittenPasses:
    """Where a record may write down a pass the rules made (RECORD.md): right after the decision that left
    the player without a legal bid, or where the turn would have come to the player; in seating order."""

    def __init__(self, colors: tuple[str, ...]) -> None:
        self.colors = colors
        self.here: tuple[str, ...] = ()   # colours whose pass may be written at this point, in seating order
        self.owed: frozenset[int] = frozenset()  # seats passed automatically the turn has not come to yet

    def take(self, color: str) -> bool:
        """True (and spent, with those before it) when a pass by `color` is one the record may write here."""
        if color not in self.here:
            return False
        i = self.here.index(color)
        self.here = self.here[i + 1:]
        self.owed = self.owed - {self.colors.index(color)}
        return True

    def follow(self, before: State, after: State) -> None:
        """After a decision: the turn walks clockwise from its player to the next to act, or round the table."""
        if not after.auto_passed and not self.owed:
            self.here = ()  # most decisions: no pass made or owed
            return
        n = len(self.colors)
        actor = before.to_act
        new = frozenset(after.auto_passed)
        if after.call:  # the call goes on: the turn comes to the seats between the actor and the next to act
            reached = frozenset((actor + k) % n for k in range(1, (after.to_act - actor) % n))
            here, self.owed = (self.owed & reached) | new, (self.owed | new) - reached
        else:  # the call is over (the game perhaps too): the turn would come to everyone still owed a pass
            here, self.owed = self.owed | new, frozenset()
        self.here = tuple(self.colors[s] for s in sorted(here, key=lambda s: (s - actor - 1) % n))


def replay(doc: Any, board: Optional[Board] = None) -> State:
    """Rebuild the state a record leads to; raises RecordError at the first thing wrong."""
    board = board or load_board()
    try:
        setup = parse_setup(doc, board)
        actions = doc.get("actions", [])
        if not isinstance(actions, list):
            raise _bad("actions must be a list")
    except RuleError as e:
        raise RecordError("setup", e) from None
    state = new_game(setup)
    written = _WrittenPasses(setup.colors)
    for i, raw in enumerate(actions, 1):
        try:
            action = parse_action(raw)
            if isinstance(action, Pass) and written.take(action.player):
                continue  # an automatic pass written down: the rules made it already, nothing changes
            after = apply(state, action, board)
        except RuleError as e:
            raise RecordError(f"action {i}", e) from None
        written.follow(state, after)
        state = after
    return state


def walk(doc: Any, board: Optional[Board] = None) -> Iterator[tuple[Action, State, State, bool]]:
    """(action, state before, state after, written) for each action of a record, checked as `replay` checks it
    (raises RuleError at the first thing wrong); `written` marks an automatic pass the record wrote down (the
    state does not change). The replay of a finished game (companion/game/replay.py) is made from it."""
    board = board or load_board()
    setup = parse_setup(doc, board)
    state = new_game(setup)
    written = _WrittenPasses(setup.colors)
    for raw in doc.get("actions", []):
        action = parse_action(raw)
        if isinstance(action, Pass) and written.take(action.player):
            yield action, state, state, True
            continue
        after = apply(state, action, board)
        written.follow(state, after)
        yield action, state, after, False
        state = after


def setup_json(setup: Setup, secrets: bool = True) -> dict:
    """The setup half of a record; `secrets=False` leaves the secret cards out."""
    players = []
    for s in setup.seats:
        p = {"color": s.color, "name": s.name}
        if secrets:
            p["area"] = s.area
            p["neighborhood"] = s.neighborhood
        players.append(p)
    return {
        "format": FORMAT,
        "mode": setup.mode,
        "players": players,
        "removed_districts": sorted(setup.removed_districts),
        "tokens": dict(sorted(setup.tokens.items())),
    }


def to_record(setup: Setup, actions: Iterable[Action]) -> dict:
    """The whole record of a game: setup (with every secret card) and every decision."""
    doc = setup_json(setup)
    doc["actions"] = [a.to_json() for a in actions]
    return doc
