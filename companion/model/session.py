"""What a restart voids of a game: never in its log (companion/model/game.py's `Game.session`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from companion.model.absences import Absences


@dataclass
class Session:
    """What a restart voids: codes, asks and moves under way, who is offline, the screens, how long each phone has
    been gone and what the storage says (given by the table when it makes the game, companion/table/memory.py, and
    the storage notice set again by the one path, companion/table/commit.py, whenever it changes).

    Never in the log, so replaying the log never brings back a code, an ask or a half-made move.
    """

    codes: dict = field(default_factory=dict)            # colour -> Code that hands a seat to a new device
    host_claims: dict = field(default_factory=dict)      # colour -> Code, oldest first: each claimer its own
    offline: tuple = ()                                  # seated colours with no live device
    displays: set = field(default_factory=set)           # devices showing the table (the table's own set)
    kiosks: set = field(default_factory=set)             # the Pi's own screen (the table's own set): table powers
    seat_addresses: dict = field(default_factory=dict)   # colour -> the address a lobby seat was taken from
    banned_addresses: set = field(default_factory=set)   # addresses taken off a lobby seat by the host
    asks: list = field(default_factory=list)             # asks for gone seats (companion/asks.py), oldest first
    asked: int = 0                                       # asks numbered so far (each device sees its own number)
    rescue: Optional[dict] = None                        # a seat moving with the table's confirmation
    show_skipped: bool = False                           # the host skipped the table screen's reveal of the tally
    replay_step: Optional[int] = None                    # the replay's step the host shows on the table screen
    replay: Optional[tuple] = None                       # (seq, the replay as sent): worked out once per finished game
    show_review: bool = False                            # the host shows the Pi's review on the table screen
    absences: Absences = field(default_factory=Absences)  # how long each device has been gone (absences.py)
    storage: Optional[dict] = None                       # what every screen says of the storage (store/notice.py)
    pi_held: Optional[tuple] = None                      # (actions, colour, action): the Pi's act held for the board
