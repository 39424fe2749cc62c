"""The Pi's seats as the table keeps them: the host gives a free colour to the Pi or takes it back; its moves
come back from companion/pi_seat.py's thinker through the one path."""
from __future__ import annotations

from typing import TYPE_CHECKING

from companion import players
from companion.errors import Refused
from companion.game.state import Action
from companion.model.board_steps import waits
from companion.model.seats import level_of, people
from companion.model.game import Game
from companion.store import events

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.pi_seat import PiThinker
    from companion.table.commit import OnePath
    from companion.table.lobby import Lobby
    from companion.table.memory import Shelf


def person_seat(game: Game, color: str) -> None:
    """Moving a seat, handing it the host role, passing for it: a person's seat only."""
    if level_of(game.devices.get(color)) is not None:
        raise Refused(409, "pi_plays", color=color)


class PiRequests:
    """Table's requests for the Pi's seats: the host gives a free colour to the Pi or takes it back, in the lobby;
    the Pi's decisions come back through `pi_act`. Built with the shelf, the one path, the Pi, the lobby (its host's
    changes, its deal's check) and the calls' `play` (a bid or a pass checked by the rules, then committed)."""

    def __init__(self, shelf: Shelf, path: OnePath, pi: PiThinker, lobby: Lobby, play):
        self.shelf, self.path, self.pi, self.lobby, self.play = shelf, path, pi, lobby, play

    def seat_pi(self, gid: str, color: str, level: str, device: str) -> str:
        with self.lobby.for_host(gid, device) as game:
            if color not in game.colors:
                raise Refused(404, "no_seat", color=color)
            if level not in players.PI_LEVELS:
                raise Refused(400, "pi_level", levels=", ".join(players.PI_LEVELS))
            holder = game.devices.get(color)
            if holder is not None and level_of(holder) is None:
                raise Refused(409, "seat_taken", color=color, name=game.names.get(color) or "")
            if game.cards_locked:
                raise Refused(409, "cards_locked")
            if holder is None and len(people(game)) <= 1:
                raise Refused(409, "pi_last_person")
            body = {"color": color, "level": level}
            if game.deal == "physical":
                # The people's entries may all be in once this seat is the Pi's: checked together now, as the
                # last entry would have been (table.enter_cards).
                body.update(self.lobby.deal_check(game, game.cards, [c for c in people(game) if c != color]))
            text = self.path.commit(game, events.Pi(body), device)
            self.pi.warm()
            return text

    def free_pi(self, gid: str, color: str, device: str) -> str:
        with self.lobby.for_host(gid, device) as game:
            if level_of(game.devices.get(color)) is None:
                raise Refused(409, "not_pi_seat", color=color)
            if game.cards_locked:
                raise Refused(409, "cards_locked")   # as release: a seat freed must not reopen the deal for a guess
            return self.path.commit(game, events.Pi({"color": color, "level": None}), device)

    def pi_act(self, gid: str, seq: int, color: str, action: Action) -> None:
        """The Pi's decision, through the one path, if the game is still where the Pi saw it (else dropped)."""
        game = self.shelf.games.get(gid)
        if game is None:
            return
        with game.lock:
            st = game.state
            if (game.seq != seq or game.phase != "playing" or st.to_act_color != color or action.player != color
                    or level_of(game.devices.get(color)) is None):
                return
            if waits(game):   # the board pace: held until a person says the board shows every step
                game.session.pi_held = (len(game.actions), color, action)
                return
            self.play(game, action, game.devices[color])
