"""What each device may see of a game: everything public, and of the secrets only its own seat's.

The one place to read when checking that no phone is ever sent another player's cards.
"""
from __future__ import annotations

import math
import weakref
from dataclasses import replace
from typing import Any, Iterable, Optional

import orjson

from companion.game.rules import could_outbid, legal_actions
from companion.game.state import Bid, State
from companion.lang import i18n
from companion.model.game import Game
from companion.model.seats import level_of, name_for


class _Cached:
    """One game's public view with the `rev` it was made at, and the JSON text of a view: each a tuple written
    at once, so a reader on another thread sees a whole pair, never one half new (the text names its view)."""
    __slots__ = ("made", "text")

    def __init__(self):
        self.made: Optional[tuple[int, dict]] = None
        self.text: Optional[tuple[dict, str]] = None


# The public views' cache, kept here beside what reads it rather than in the game (whose `rev` says when it is
# stale): by the game object's identity, dropped when the object goes (a game reloaded from the log is a new
# object, at rev 0, and must never meet an older object's view).
_CACHE: dict[int, _Cached] = {}


def _cached(game: Game) -> _Cached:
    entry = _CACHE.get(id(game))
    if entry is None:
        entry = _CACHE[id(game)] = _Cached()
        weakref.finalize(game, _CACHE.pop, id(game), None)
    return entry


def public(game: Game) -> dict:
    """What the whole table may see; rebuilt once per change."""
    storage = game.session.storage
    cached = _cached(game)
    made = cached.made
    if made is not None and made[0] == game.rev and made[1]["storage"] == storage:
        return made[1]
    st = game.state
    view = _table(game, st, storage)
    view["players"] = [_player(game, st, i, color) for i, color in enumerate(game.colors)]
    if st:
        _play(game, st, view)
    if game.board is not None:
        _board(game, view)
    cached.made = (game.rev, view)
    return view


def _table(game: Game, st: Optional[State], storage) -> dict[str, Any]:
    """The game's public fields before any seat's: phase, whose turn, the host role, asks, notices, the log."""
    claims = [c for c, code in game.session.host_claims.items() if not code.expired]
    asks = [a for a in game.session.asks if a.open]
    return {
        "id": game.id,
        "seq": game.seq,
        "phase": game.phase,
        "mode": game.mode,
        "deal": game.deal,
        "removed_districts": sorted(game.removed),
        "to_act": st.to_act_color if st and not game.abandoned else None,
        "start_player": st.colors[st.start] if st and not st.finished else None,
        "players": [],
        "call": [],
        "built": {},
        "tokens": dict(game.tokens) if st is None else dict(st.tokens),
        "subway_card": None,
        "archaeological_card": None,
        "could_outbid": [],
        "passed": [],
        "last_call": None,
        "actions": len(game.actions),
        "host_color": game.seat_of(game.host),
        "host_away": game.phase in ("lobby", "playing") and game.session.absences.host_away_now(game),
        # Players asking for the role of a host long gone, oldest first (each types its own code).
        "host_claims": claims,
        "host_claim": {"color": claims[0]} if claims else None,
        # A seat moving to a new phone with the table's confirmation: every screen says so while it may be
        # cancelled; before that, every ask for a gone seat by its number (its code is on the Pi's screen only).
        "seat_move": ({"color": game.session.rescue["color"], "stage": "moving"} if game.session.rescue else
                      {"color": asks[0].color, "stage": "code"} if asks else None),
        "seat_asks": [{"color": a.color, "ask": a.number} for a in asks],
        "offline": [c for c in game.session.offline if c in game.devices],
        "notice": game.notice,
        # The storage failed (read-only, full, an acknowledged action lost): the same notice every page shows.
        "storage": storage,
        "next_game": game.next_game,
        "from_game": game.from_game,
        "shown": game.shown,
        # Public facts only (bids stand face up, passes are said aloud): the short log, newest last.
        "log": list(game.recent),
        "call_over": None,
        "undone": game.undone,
        # What to do on the real board since a person last said it was done (companion/table/board_steps.py).
        "board_pending": [{k: v for k, v in s.items() if k != "action"} for s in game.board_steps
                          if s["seq"] > game.board_through],
        "pace": game.pace,
        "show_skipped": game.session.show_skipped,       # the host skipped the table screen's reveal of the tally
        # The replay's step the host's phone shows on the table screen (None: the end of the game, as ever).
        "replay_step": game.session.replay_step if game.phase == "finished" else None,
        "hints_allowed": game.hints_on,                  # the host allowed "What would the Pi do?" (issue 41)
        "show_review": game.session.show_review,         # the host shows the Pi's review on the table screen
    }


def _player(game: Game, st: Optional[State], i: int, color: str) -> dict[str, Any]:
    """One seat as the whole table sees it: name, presence, values left, tokens, buildings; never its cards."""
    p = {"color": color, "name": game.names.get(color), "seated": color in game.devices,
         "online": color in game.devices and color not in game.session.offline,
         "values": list(range(1, 14)), "tokens": {"trendy": 0, "subway": 0, "archaeological": 0},
         "buildings": 0}
    if (color in game.session.offline and st and not game.abandoned
            and game.session.absences.seat_gone(game, game.devices.get(color))):
        p["gone"] = True          # offline long enough: a new phone may ask the table for the seat
    level = level_of(game.devices.get(color))
    if level:
        p["pi"] = level           # the Pi plays this seat (its cards are dealt by the app, seen by nobody)
    elif game.deal == "physical" and not st:
        p["cards_entered"] = color in game.cards
    if game.hints_on:
        p["hints"] = game.hints.get(color, 0)   # "What would the Pi do?" asked: counted in public, never said
    if st:
        p["values"] = list(st.hands[i])
        t, s, a = st.collected[i]
        p["tokens"] = {"trendy": t, "subway": s, "archaeological": a}
        p["buildings"] = st.built_count[i]
    return p


def _play(game: Game, st: State, view: dict) -> None:
    """The board in play: the call, what is built, the cards' holders, the last call; scores once it is over."""
    view["call"] = [{"neighborhood": b.neighborhood, "color": b.player, "value": b.value} for b in st.call]
    view["built"] = {nb: {"color": b.player, "value": b.value} for nb, b in st.built.items()}
    view["subway_card"] = None if st.subway_card is None else st.colors[st.subway_card]
    view["archaeological_card"] = None if st.archaeological_card is None else st.colors[st.archaeological_card]
    view["could_outbid"] = list(could_outbid(st))
    view["passed"] = [st.colors[i] for i in sorted(st.passed)]
    # After an undo the undo's own notice is the card: undoing a call's opening bid must not bring back
    # the card of the call before it. An abandoned game has no next call to prepare: no card.
    if not st.call and game.recent and "ended" in game.recent[-1] and not game.undone and not game.abandoned:
        view["call_over"] = dict(game.recent[-1]["ended"], seq=game.seq, to_act=st.to_act_color)
    if st.last_call:
        lc = st.last_call
        view["last_call"] = {"color": lc.player, "neighborhood": lc.neighborhood, "value": lc.value,
                             "token": lc.token, "subway_card": lc.subway_card,
                             "archaeological_card": lc.archaeological_card}
    # Projected or final scores hold the secret cards' points: only shown once the game is over.
    if st.finished:
        ex = game.explain(st)
        view["scores"] = ex["scores"]
        view["details"] = ex["details"]
        view["highest"] = ex["highest"]
        view["tiebreak"] = ex["tiebreak"]
        view["revealed"] = {s.color: {"area": s.area, "neighborhood": s.neighborhood}
                            for s in st.setup.seats}


def _board(game: Game, view: dict) -> None:
    """A board scored without the app: what was entered, in public; of the secret cards only who has entered them.

    The values behind it are stand-ins (the board gives heights, never numbers): no view shows them."""
    fb = game.board
    view["from_board"] = True
    view["board"] = {
        "buildings": {nb: {"color": c, "height": h} for nb, (c, h) in sorted(fb.buildings.items())},
        "tokens": {c: dict(zip(("trendy", "subway", "archaeological"), fb.held(c))) for c in fb.colors},
        "subway_card": fb.subway_card,
        "archaeological_card": fb.archaeological_card,
        "cards_entered": [s.color for s in fb.seats if s.area is not None],
    }
    view["built"] = {nb: {"color": c, "height": h} for nb, (c, h) in fb.buildings.items()}
    for p in view["players"]:
        p["values"] = []
        p["buildings"] = len(fb.built_by(p["color"]))
        p["tokens"] = view["board"]["tokens"][p["color"]]
    view["subway_card"], view["archaeological_card"] = fb.subway_card, fb.archaeological_card


def view(game: Game, device: Optional[str]) -> dict:
    """The public view plus what only this device may see: its seat, its cards, its legal moves."""
    whole = dict(public(game))
    whole.update(private(game, device))
    return whole


def view_json(game: Game, device: Optional[str]) -> str:
    """view(device) as JSON text; the public part is encoded once per change, shared by every socket."""
    return _public_json(game)[:-1] + "," + _dumps(private(game, device))[1:]


def view_texts(game: Game, devices: Iterable[Optional[str]]) -> dict[Optional[str], str]:
    """view_json(game, device) of each device, for one change told to every socket: each device's private
    part is still decided by private(), but devices that may see the same (the watchers) share one text."""
    head = _public_json(game)[:-1] + ","
    wait = _host_wait(game)
    made: list[tuple[dict, str]] = []
    texts = {}
    for device in devices:
        mine = private(game, device, wait)
        for other, text in made:
            if other == mine:
                break
        else:
            text = head + _dumps(mine)[1:]
            made.append((mine, text))
        texts[device] = text
    return texts


def _public_json(game: Game) -> str:
    shared = public(game)
    cached = _cached(game)
    text = cached.text
    if text is None or text[0] is not shared:
        text = cached.text = (shared, _dumps(shared))
    return text[1]


def _host_wait(game: Game) -> Optional[int]:
    """Public, but counted at each send (never cached with the public view): seconds until a player may claim
    the role of a host whose phone is gone; None while the host's phone is here."""
    wait = game.session.absences.host_wait(game) if game.phase in ("lobby", "playing") else None
    return None if wait is None else math.ceil(wait)


def _dumps(value: Any) -> str:
    """json.dumps(value, separators=(",", ":"), ensure_ascii=False), byte for byte, by orjson's compiled encoder:
    a 5 KB view in about a tenth of the standard library's time, which was a fifth of a bid's instructions
    (benchmarks/callgrind_bid.py). A key that is not a string is written as json writes it."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


_UNSET: Any = object()


def private(game: Game, device: Optional[str], host_wait: Any = _UNSET) -> dict:
    """What only this device may see: host or not, its seat and cards, its legal moves (`host_wait`: the
    _host_wait() of this moment, when it was counted once for every device)."""
    view: dict[str, Any] = {"host": game.can_host(device),
                            "table_display": device in game.session.displays or device in game.session.kiosks}
    kiosk = device is not None and device in game.session.kiosks
    view["host_wait"] = _host_wait(game) if host_wait is _UNSET else host_wait
    # Public like host_wait, counted at each send: each offline seat, whole seconds until a new phone may ask for it.
    view["seat_waits"] = game.session.absences.seat_waits(game)
    color = game.seat_of(device)
    # Codes this device asked for (a seat's move code, shown on its own screen only).
    mine = {c: code.value for c, code in game.session.codes.items()
            if device is not None and code.issuer == device and not code.expired}
    if mine:
        view["move_codes"] = mine
    # Codes that confirm with the whole table watching: on the Pi's own screen only (never a claimed display).
    if kiosk:
        claims = {c: code.value for c, code in game.session.host_claims.items() if not code.expired}
        if claims:
            view["host_claim_codes"] = claims
            view["host_claim_code"] = next(iter(claims.values()))   # the oldest claim's
        asks = [{"color": a.color, "ask": a.number, "code": a.code.value, "played": a.played}
                for a in game.session.asks if a.open]
        if asks:
            view["seat_move_codes"] = asks
            view["seat_move_code"] = {"color": asks[0]["color"], "code": asks[0]["code"]}   # the oldest ask's
    r = game.session.rescue
    if r and device is not None and r["device"] == device:
        view["seat_move_mine"] = r["color"]
    ask = next((a for a in game.session.asks if device is not None and a.device == device and a.open), None)
    if ask is not None:
        view["seat_move_mine"] = ask.color
        view["seat_move_ask"] = ask.number   # the number the Pi's screen lists this device's code under
    # Seats taken by a device never seen at this table (a squatter or a new player): the host's concern only;
    # the table screen and the other phones are never told who is new.
    if view["host"] and game.newcomers:
        view["new_devices"] = sorted(c for c in game.newcomers if c in game.devices)
    view["legal"] = None
    if color:
        area, hood = game.cards.get(color, (None, None))
        view["you"] = {"color": color, "name": game.names.get(color), "area": area, "neighborhood": hood}
        st = game.state
        if st and not game.abandoned and st.to_act_color == color:
            legal = legal_actions(st)
            view["legal"] = {"neighborhoods": {nb: list(legal.values) for nb in sorted(legal.neighborhoods)},
                             "pass": legal.can_pass}
            # A first game (companion/store/first_game.py): a hint on this phone at its turns until its first bid.
            # Only ever in this seat's own view: the table and the other phones are never told who is new.
            if color in game.first_game and not any(isinstance(a, Bid) and a.player == color for a in game.actions):
                view["first_game_hint"] = True
    return view


def seat_state(game: Game, color: str) -> State:
    """What the seat `color` may know now, for the Pi playing it: the game's state with every other seat's secret
    cards hidden (its own kept), as that seat's phone would be shown; the Pi's players get nothing else."""
    st = game.state
    seats = tuple(s if s.color == color else replace(s, area=None, neighborhood=None) for s in st.setup.seats)
    return replace(st, setup=replace(st.setup, seats=seats))


HISTORY_FIELDS = ("id", "status", "mode", "date", "started_at", "ended_at", "duration_min", "players", "winners",
                  "tiebreak", "calls", "from_board")
HISTORY_PLAYER = ("color", "name", "score", "buildings", "rank", "winner", "start")


def history_row(entry: dict) -> dict:
    """What any device may see of an ended game in the history list: names, colours, scores; never a card.

    The cards of a game are only ever shown through `public()`, which reveals them once the game is over.
    An abandoned game's row carries its points so far (secret-card points included) and the history
    links its record (every card): fine only because an abandoned game can never resume.
    """
    row = {k: entry[k] for k in HISTORY_FIELDS}
    # A seat the Pi played keeps its level ("pi"), marked by the store by what the seat was, never by its name.
    row["players"] = [pi_named({k: p[k] for k in HISTORY_PLAYER + ("pi", "hints") if k in p}) for p in entry["players"]]
    return row


def pi_level(game: Game, color: str) -> Optional[str]:
    """The level of the Pi playing this seat, or None for a person's seat."""
    return level_of(game.devices.get(color))


def pi_named(seat: dict) -> dict:
    """A seat (or a standings row) the Pi played, under its one name ("Pi Red (strong)", name_for), whatever
    an older log kept ("the Pi (strong)"); a person's seat as it was."""
    if seat.get("pi") and seat.get("color"):
        seat["name"] = name_for(seat["pi"], seat["color"])
        if "spellings" in seat:
            seat["spellings"] = [seat["name"]]
    return seat


def said_name(game: Game, color: str, lang: str = "en") -> str:
    """How every server sentence names a seat (app.js M.who says the same on the pages): the Pi's one name
    (name_for), a person "Ann (Red)", a seat nobody has named yet its colour, capitalised ("Red")."""
    level = level_of(game.devices.get(color))
    if level is not None:
        return name_for(level, color, lang)
    said = i18n.term(lang, color)
    said = said[:1].upper() + said[1:]
    name = game.names.get(color)
    return f"{name} ({said})" if name else said


def standings(found: dict) -> dict:
    """The standings as sent: a row of the Pi's marked with its level and colour, which every page names in its
    language."""
    return {mode: [pi_named(dict(r)) for r in rows] for mode, rows in found.items()}


def front_door(game: Game, device: Optional[str]) -> dict[str, Any]:
    """The game the table shows, as the front door offers it to this device: its phase, who sits where (names and
    the Pi's seats, never cards), whether this device hosts it or sits in it, and its setup (public from the lobby)."""
    return {"id": game.id, "phase": game.phase,
            "players": [pi_named({"color": c, "name": game.names.get(c), "seated": c in game.devices,
                                  "pi": pi_level(game, c)}) for c in game.colors],
            "host": game.can_host(device), "seated": game.seat_of(device),
            "setup": {"mode": game.mode, "players": list(game.colors), "removed_districts": sorted(game.removed),
                      "deal": game.deal, "layout": game.layout}}
