"""Finished games written straight into SQLite with the real Store, as the table would have logged them.

Games are played by the real rules engine (tests/games.py); each becomes the events the table appends
(create, seat, start, action..., with an undo now and then) and, unless `summaries=False` (a database
from before summaries), the summary row the table writes with the event that ends the game.
"""
from __future__ import annotations

import json
import random
from typing import Iterable, Optional

from companion import players
from companion.model.seats import device_for
from companion.store import history
from companion.store.db import Store
from companion.game.rules import apply, new_game
from companion.game.state import Setup
from companion.table import Table, device_id
from games import random_game, random_setup


PI_NAMED = {f"the Pi ({level})": level for level in players.PI_LEVELS}   # as older logs named them


def game_log(setup: Setup, actions, names: dict, rng: random.Random, undos: float = 0.02) -> list[tuple]:
    """The events (kind, body, device) of a game: what the table (companion/table/) appends for it."""
    colors = list(setup.colors)
    devices = {c: device_id(f"device-{c}-{rng.random()}-cookie-long") for c in colors}
    host = devices[colors[0]]
    events = [("create", {"mode": setup.mode, "players": colors, "removed_districts": sorted(setup.removed_districts),
                          "tokens": dict(setup.tokens), "deal": "app", "seed": None}, host)]
    for c in colors:   # a name the Pi's seats go by ("the Pi (strong)") is a seat the host gave to the Pi
        level = PI_NAMED.get(names[c])
        if level:
            devices[c] = device_for(level)
        events.append(("pi", {"color": c, "level": level}, host) if level else
                      ("seat", {"color": c, "name": names[c]}, devices[c]))
    events.append(("start", {"cards": {s.color: [s.area, s.neighborhood] for s in setup.seats}}, host))
    state = new_game(setup)
    for i, action in enumerate(actions):
        if rng.random() < undos and i:
            events.append(("undo", {"action": i}, host))
            events.append(("action", actions[i - 1].to_json(), devices[actions[i - 1].player]))
        events.append(("action", action.to_json(), devices[action.player]))
        state = apply(state, action)
    return events


def play_one(rng: random.Random, names: Optional[dict] = None, setup: Optional[Setup] = None):
    """(setup, actions, final state, names) of a random complete game."""
    setup = setup or random_setup(rng)
    setup, actions, states = random_game(rng, setup)
    names = names or {c: f"Player {c}" for c in setup.colors}
    return setup, actions, states[-1], names


def write_game(store: Store, gid: str, events: list[tuple], at: float, summary: Optional[dict] = None,
               step: float = 20.0) -> float:
    """One game's events in one transaction, `step` seconds apart from `at`; returns the last event's time."""
    t = at

    def work(conn, _now):
        nonlocal t
        rows = []
        moved = conn.execute("SELECT COALESCE(MAX(moved), 0) FROM events").fetchone()[0]   # as Store.append counts
        for seq, (kind, body, device) in enumerate(events, 1):
            rows.append((gid, seq, kind, json.dumps(body, separators=(",", ":")), device, t, moved + seq))
            t += step
        conn.executemany("INSERT INTO events (game, seq, kind, body, device, at, moved) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         rows)
        if summary is not None:
            history.record_play(summary, len(events))(conn, t - step)

    store.write(work)
    return t


def write_games(path: str, count: int, seed: int = 0, summaries: bool = True,
                names: Iterable[str] = ("Anna", "Ben", "Chloé", "Dev", "Emil", "Fatou")) -> list[dict]:
    """`count` random finished games into the SQLite file at `path`, a day apart; what each was."""
    rng = random.Random(seed)
    pool = list(names)
    store = Store(path)
    made = []
    at = 1.6e9
    for i in range(count):
        setup, actions, final, _ = play_one(rng)
        who = dict(zip(setup.colors, rng.sample(pool, len(setup.colors))))
        gid = f"old{i:05d}{rng.randrange(36**4):05d}"
        events = game_log(setup, actions, who, rng)
        summary = history.summarize(gid, final, "finished", who) if summaries else None
        for seat in (summary or {}).get("players", []):   # as the table marks the Pi's seats (table/memory.py)
            if PI_NAMED.get(seat["name"]):
                seat["pi"] = PI_NAMED[seat["name"]]
        write_game(store, gid, events, at, summary)
        made.append({"id": gid, "setup": setup, "actions": actions, "names": who, "events": len(events)})
        at += 86400
    store.close()
    return made


def write_abandoned(path: str, gid: str, at: float, seed: int = 0, names: Optional[dict] = None) -> dict:
    """A game stopped half way by the evening branch's `abandon` event, its summary in the same transaction."""
    rng = random.Random(seed)
    setup, actions, _, _ = play_one(rng)
    who = names or dict(zip(setup.colors, ("Anna", "Ben", "Chloé", "Dev")))
    kept = actions[: len(actions) // 2]
    state = new_game(setup)
    for a in kept:
        state = apply(state, a)
    events = game_log(setup, kept, who, rng, undos=0)
    events.append(("abandon", {}, events[0][2]))
    store = Store(path)
    write_game(store, gid, events, at, history.summarize(gid, state, "abandoned", who))
    store.close()
    return {"id": gid, "setup": setup, "actions": kept, "names": who}


def drive(table: Table, setup, actions, names: dict, tag: str = "") -> str:
    """A game through the table's own path: create, seats, cards typed in, start, every action."""
    devices = {c: f"dev-{tag}-{c}" for c in setup.colors}
    host = devices[setup.colors[0]]
    game = table.create({"mode": setup.mode, "players": list(setup.colors),
                         "removed_districts": sorted(setup.removed_districts),
                         "layout": {"tokens": dict(setup.tokens)}, "deal": "physical"}, host)
    for s in setup.seats:
        table.claim_seat(game.id, s.color, names[s.color], devices[s.color])
        table.enter_cards(game.id, s.color, s.area, s.neighborhood, devices[s.color])
    table.start(game.id, host)
    for a in actions:
        table.act(game.id, devices[a.player], {"pass": True} if not hasattr(a, "value") else
                  {"bid": a.neighborhood, "value": a.value}, None)
    return game.id
