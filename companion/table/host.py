"""The host role: handed to a seat, taken by the table, or claimed when the host's phone is long gone."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from companion import views
from companion.codes import Code
from companion.errors import Refused
from companion.table import checks
from companion.table.pi_seats import person_seat
from companion.model.game import Game
from companion.store import events

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.model.absences import Absences
    from companion.table.commit import OnePath
    from companion.table.memory import Games
    from companion.table.seats import CodeCheck


class Hosting:
    """The host role changes hands only through the log. Built with the games, the one path, the code check, the
    absences (how long the host's phone has been gone) and the Pi's own screens."""

    def __init__(self, games: Games, path: OnePath, codes: CodeCheck, absences: Absences, kiosks: set):
        self.games, self.path, self.codes, self.absences, self.kiosks = games, path, codes, absences, kiosks

    def hand_host(self, gid: str, color: str, device: str) -> str:
        game = self.games.get(gid)
        with game.lock:
            checks.host_on_seat(game, color, device)
            person_seat(game, color)
            return self.path.commit(game, events.Host({"color": color}), device)

    def table_host(self, gid: str, device: str) -> str:
        """The table display takes the host role (it already may act as host; this makes it the host)."""
        game = self.games.get(gid)
        with game.lock:
            if device not in self.kiosks:
                raise Refused(403, "not_table")
            return self.path.commit(game, events.Host({}), device)

    def claim_host(self, gid: str, code: Optional[str], device: str, address: str = "") -> str:
        """A seated player asks for the role of a host long gone; the table confirms (its own code on the Pi's
        screen, or another player). Each claimer's code is its own: a second claim never voids the first."""
        game = self.games.get(gid)
        with game.lock:
            color = checks.seated(game, device)
            if device == game.host:
                raise Refused(409, "already_host")
            if code is None and self._nobody_to_confirm(game, color):
                # A 2-player game whose host is gone: the host-away wait alone is the check (docs/API.md).
                return self.path.commit(game, events.Host({"color": color, "confirmed": "wait"}), device)
            if self.absences.host_here(game):
                raise Refused(409, "host_here", seconds=int(self.absences.host_away))
            held = game.session.host_claims.get(color)
            if held is not None and (held.expired or held.issuer != device):
                held = None   # expired, or made for the seat's earlier phone
            if code is None:
                if held is None:
                    game.session.host_claims.pop(color, None)
                    game.session.host_claims[color] = Code.fresh(device)
                    self.path.tell_at_expiry(game, game.session.host_claims[color])
                    self.path.changed(game)
                return views.view_json(game, device)
            self.codes.try_code(held, code, device, address)
            return self.path.commit(game, events.Host({"color": color, "confirmed": "code"}), device)

    def approve_host(self, gid: str, color: str, device: str) -> str:
        game = self.games.get(gid)
        with game.lock:
            mine = game.seat_of(device)
            if mine is None:
                raise Refused(403, "not_seated")
            claim = game.session.host_claims.get(color)
            if claim is None or claim.expired:
                raise Refused(409, "no_claim", color=color)
            if mine == color:
                raise Refused(403, "approve_other")
            if self.absences.host_here(game):
                raise Refused(409, "host_here", seconds=int(self.absences.host_away))
            return self.path.commit(game, events.Host({"color": color, "confirmed": mine}), device)

    def _nobody_to_confirm(self, game: Game, color: str) -> bool:
        """A host claim nobody else could confirm, past the host-away wait: no other seat is held but the gone host's.
        Only in a game being played, where a seat is had only with its own code or the table's: a lobby seat is
        free to any device on the network, and a stranger sitting down must not take a lobby's host role."""
        return (game.phase == "playing" and self.absences.host_away_now(game)
                and not any(c != color and d != game.host for c, d in game.devices.items()))
