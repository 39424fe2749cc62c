"""Who may ask what, in which phase: the checks every request shares, each a sentence for the phone."""
from __future__ import annotations

from typing import Optional

from companion.errors import Refused
from companion.limits import OWN
from companion.model.game import Game


def host_only(game: Game, device: Optional[str]) -> None:
    if not game.can_host(device):
        raise Refused(403, "not_host")


def seated(game: Game, device: Optional[str]) -> str:
    """The colour this device plays in a game still on: only a seated player bids or claims the host role."""
    not_abandoned(game)
    color = game.seat_of(device)
    if color is None:
        raise Refused(403, "not_seated")
    return color


def seat_in_game(game: Game, color: str) -> None:
    """A seat of this game, and the game still on (seat and code requests name the colour they want)."""
    not_abandoned(game)
    if color not in game.colors:
        raise Refused(404, "no_seat", color=color)


def host_on_seat(game: Game, color: str, device: Optional[str]) -> None:
    """The host acts on a seat a device holds (free it for a new phone, hand it the host role)."""
    not_abandoned(game)
    host_only(game, device)
    if color not in game.devices:
        raise Refused(404, "no_seat", color=color)


def not_abandoned(game: Game) -> None:
    if game.abandoned:
        raise Refused(409, "abandoned")


def lobby_only(game: Game) -> None:
    if game.phase != "lobby":
        raise Refused(409, "started")


def fresh_seq(game: Game, expect_seq: Optional[int]) -> None:
    """A retried request (a second tap, a resend) must not act twice: it names the log's count it saw."""
    if expect_seq is not None and expect_seq != game.seq:
        raise Refused(409, "stale")


def counted(address: Optional[str]) -> bool:
    """Whether per-address rules count this address: not the Pi itself, nor a caller with none (in-process)."""
    return bool(address) and address not in OWN
