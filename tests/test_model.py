"""The model on its own (companion/model/, issue 38): a game made from its events with no table, no hub, no store,
and the views reading it as they read one at a table. It fails if the model reaches back into the table for
anything (a callback the table alone could answer) or the views need more than the game."""
from __future__ import annotations

import dataclasses
import json
import random
import typing

from companion import players, views
from companion.game.rules import apply
from companion.model.absences import Absences
from companion.model.game import Game, action_of
from companion.model.session import Session
from companion.players.match import random_setup
from companion.store import events


def played_alone(seed: int, actions: int) -> Game:
    """Create, two seats, start, then `actions` bids and passes by greedy: every event through `Game.mutate`."""
    rng = random.Random(seed)
    setup = random_setup(2, "family", rng)
    game = Game("ALONE")
    game.mutate(events.Create({"mode": "family", "players": list(setup.colors), "deal": "app",
                               "tokens": dict(setup.tokens), "removed_districts": sorted(setup.removed_districts)}),
                "host-device")
    for i, seat in enumerate(setup.seats):
        game.mutate(events.Seat({"color": seat.color, "name": seat.name}), "host-device" if i == 0 else f"phone-{i}")
    game.mutate(events.Start({"cards": {s.color: [s.area, s.neighborhood] for s in setup.seats}}), "host-device")
    for _ in range(actions):
        st = game.state
        action = players.play(st, st.to_act_color, "greedy", rng)
        body = ({"player": action.player, "pass": True} if not hasattr(action, "neighborhood") else
                {"player": action.player, "bid": action.neighborhood, "value": action.value})
        event = events.Action(body)
        assert action_of(event) == action
        game.mutate(event, game.devices[action.player], apply(st, action))
    return game


def test_a_game_made_from_its_events_alone_is_seen_by_the_views_as_at_a_table_where_nobody_is_gone():
    game = played_alone(seed=3, actions=9)
    assert isinstance(game.session.absences, Absences)   # the model's own: nobody is ever gone
    seen = views.public(game)
    assert seen["phase"] == "playing" and seen["seq"] == game.seq == 4 + 9
    assert seen["host_away"] is False and seen["storage"] is None
    assert [p["color"] for p in seen["players"]] == list(game.colors)
    assert not any(p.get("gone") for p in seen["players"])
    assert len(seen["log"]) == 9   # the short log of the actions, newest last
    for color, device in game.devices.items():
        mine = json.loads(views.view_json(game, device))
        assert mine["you"]["color"] == color and mine["seat_waits"] == {}
        # its own cards, and none of the other seat's (the views' one promise, here without a table)
        other = next(c for c in game.colors if c != color)
        assert mine["you"]["area"] == game.cards[color][0]
        assert game.cards[other][0] not in json.dumps(mine["players"])


def test_an_offline_seat_is_counted_gone_by_the_absences_the_game_was_given():
    game = played_alone(seed=5, actions=4)
    to_act = game.state.to_act_color
    away = {game.devices[to_act]: 100.0}
    game.session.absences = Absences(lambda gid, device: away.get(device, 0.0), host_away=60.0, seat_away=30.0)
    game.session.offline = (to_act,)
    game.touch()
    seen = views.public(game)
    assert [p["color"] for p in seen["players"] if p.get("gone")] == [to_act]
    other = next(c for c in game.colors if c != to_act)
    assert json.loads(views.view_json(game, game.devices[other]))["seat_waits"] == {to_act: 0}


def test_a_session_holds_values_only_never_a_call_back_into_the_table():
    """Issue 38 item 4: what a session says (the storage notice among it) is data the table set, so the views read
    it without calling up a layer; the absences are asked through their own part (model/absences.py)."""
    hints = typing.get_type_hints(Session)
    called = [f.name for f in dataclasses.fields(Session)
              if "Callable" in str(hints[f.name]) or callable(f.default)]
    assert called == []
    notice = {"key": "storage_full"}
    game = played_alone(3, 4)
    game.session.storage = notice
    assert views.public(game)["storage"] == notice
