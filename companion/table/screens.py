"""The table's screens: the Pi's own kiosk, displays let in by code, and the end-of-game show."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from companion import views
from companion.codes import Code
from companion.errors import Refused
from companion.table import checks

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.table.commit import OnePath
    from companion.table.memory import Games, Shelf
    from companion.table.seats import CodeCheck


class Screens:
    """A screen shows the public view; only the Pi's own screen has table powers. Built with the games and their
    shelf, the one path, the code check and the table's two sets of screens (shared with every game's session)."""

    def __init__(self, games: Games, shelf: Shelf, path: OnePath, codes: CodeCheck, kiosks: set, displays: set):
        self.games, self.shelf, self.path, self.codes = games, shelf, path, codes
        self.kiosks = kiosks      # devices seen on the Pi itself (its /table kiosk): table powers
        self.displays = displays  # devices showing the table: the kiosks, and devices let in by code
        self.display_code: Optional[Code] = None   # shown on the Pi's own screen when asked there

    def notice_kiosk(self, device: str) -> None:
        """A request from the Pi's own screen (web/device.py decides by address and Host, never by cookie): that
        device keeps the table's powers and shows the table."""
        self.kiosks.add(device)
        self.displays.add(device)

    def shown_game(self):
        """The game the table screen shows (the host chose it), or None."""
        return self.shelf.shown()

    def screen_of(self, device: str) -> dict:
        """Whether this device shows the table, and whether it is the Pi's own screen (its kiosk)."""
        return {"display": device in self.displays, "kiosk": device in self.kiosks}

    def show_display_code(self, device: str) -> Optional[str]:
        """Asked on the Pi's own screen only: a code that makes another device a table display (a screen)."""
        if device not in self.kiosks:
            raise Refused(403, "not_table")
        if self.display_code is None or self.display_code.expired:
            self.display_code = Code.fresh(device)
        return self.display_code.value

    def become_display(self, code: str, device: str, address: str = "") -> None:
        """A device holding the code on the Pi's screen becomes a table display: it shows what the Pi's screen
        shows of the public view, and nothing more (no host actions, no codes, no seat)."""
        with self.shelf.lock:
            if any(game.seat_of(device) or game.host == device for game in self.shelf.games.values()
                   if game.phase in ("lobby", "playing")):
                raise Refused(409, "display_seated")
            self.codes.try_code(self.display_code, code, device, address)
            self.displays.add(device)
            self.display_code = None
        for game in list(self.shelf.games.values()):
            self.path.changed(game, tell=False)

    def skip_show(self, gid: str, device: str) -> str:
        """The host ends the table screen's line-by-line reveal of the tally: every line shows at once.
        Not logged (nothing in the game changes) and never waited for: the phones show the tally at once anyway."""
        game = self.games.get(gid)
        with game.lock:
            checks.host_only(game, device)
            if game.phase != "finished":
                raise Refused(409, "show_not_over")
            if not game.session.show_skipped:
                game.session.show_skipped = True
                self.path.changed(game)
            return views.view_json(game, device)
