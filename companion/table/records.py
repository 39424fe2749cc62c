"""What the table keeps beside its games: saved token layouts, names merged in the standings, the LED test."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from companion.errors import Refused
from companion.limits import LAYOUTS_IN_ALL, LAYOUTS_PER_DEVICE
from companion.store import history

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.store.db import Store
    from companion.table.commit import Lights, OnePath
    from companion.table.memory import Shelf


class RecordRequests:
    """Writes that are no game's event still go through the table: checked and written under its lock. Built with
    the shelf, the store, the one path (the storage notice), the LEDs and the screens."""

    def __init__(self, shelf: Shelf, store: Store, path: OnePath, leds: Optional[Lights], displays: set):
        self.shelf, self.store, self.path, self.leds, self.displays = shelf, store, path, leds, displays

    def save_layout(self, name: str, tokens: dict, players: int, device: str) -> None:
        """Only the device that saved a name may overwrite it; a device and the table hold a bounded number."""
        with self.shelf.lock:   # the check and the write as one: two phones saving at once never pass the cap together
            old = self.store.layout(name)
            if old is not None and old["device"] != device:
                raise Refused(409, "layout_taken")
            if old is None:
                if self.store.layout_count(device) >= LAYOUTS_PER_DEVICE:
                    raise Refused(429, "layouts_full", limit=LAYOUTS_PER_DEVICE)
                if self.store.layout_count() >= LAYOUTS_IN_ALL:
                    raise Refused(429, "layouts_full", limit=LAYOUTS_IN_ALL)
            self.path.noting_storage(lambda: self.store.save_layout(name, dict(tokens), device, players))

    def merge_names(self, alias: str, into: str, device: Optional[str]) -> tuple[str, str]:
        """The host of the game on the table counts one spelling of a name as another (an appended row)."""
        with self.shelf.lock:
            shown = self.shelf.games.get(self.shelf.current) if self.shelf.current else None
        if shown is None or shown.host != device:
            raise Refused(403, "not_host")
        try:
            return self.path.noting_storage(lambda: history.merge_names(self.store, alias, into, device))
        except ValueError:
            raise Refused(409, "bad_merge") from None

    def test_leds(self, device: Optional[str]) -> None:
        """Every LED in turn; mid-game only the host may take the LEDs away from the player to bid."""
        with self.shelf.lock:
            shown = self.shelf.games.get(self.shelf.current) if self.shelf.current else None
        if shown is not None and shown.phase == "playing" and not shown.can_host(device):
            raise Refused(403, "not_host")
        if self.leds is not None:
            self.leds.test_sequence()

    def holds_seat(self, device: str) -> bool:
        """A device with a seat or the host role in a game in memory, or a screen: a known device."""
        if device in self.displays:
            return True
        with self.shelf.lock:
            games = list(self.shelf.games.values())
        return any(device == game.host or device in game.devices.values() for game in games)
