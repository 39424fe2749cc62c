"""Three awards for the end of a game, worked out from its record alone: who built most, who was outbid most, who took
most tokens. Pure and deterministic: the same record gives the same awards.

`awards(record)` -> [{"award", "colour", "value"}], in this order: "builder" (most calls won, that is buildings
built), "outbid" (most times a bid of theirs was outbid by another player's), "collector" (most tokens taken, of any
kind). A tie goes to the player who reached the figure first in the game (then to the earlier seat); an award nobody
earned (a figure of 0) is left out. Each page names the award in its language (strings award_<name>).
"""
from __future__ import annotations

from typing import Any, Optional

from .board import Board
from .record import walk
from .state import Bid

AWARDS = ("builder", "outbid", "collector")


def awards(doc: Any, board: Optional[Board] = None) -> list[dict]:
    """The awards of a record (RECORD.md; a finished game's, though any legal record is counted as far as it goes)."""
    colors = [p["color"] for p in doc["players"]]
    counts = {a: dict.fromkeys(colors, 0) for a in AWARDS}
    reached = {a: {} for a in AWARDS}     # award -> (colour, figure) -> action number it was first reached at

    def add(award: str, color: str, n: int, when: int) -> None:
        counts[award][color] += n
        reached[award].setdefault((color, counts[award][color]), when)

    for seq, (action, before, after, written) in enumerate(walk(doc, board), 1):
        if written:
            continue
        if isinstance(action, Bid) and before.call and before.call[-1].player != action.player:
            add("outbid", before.call[-1].player, 1, seq)
        if not after.call and after.last_call is not None and after.last_call is not before.last_call:
            lc = after.last_call
            add("builder", lc.player, 1, seq)
            if lc.token:
                add("collector", lc.player, 1, seq)
    out = []
    for award in AWARDS:
        best = max(counts[award].values())
        if best <= 0:
            continue
        color = min((c for c in colors if counts[award][c] == best),
                    key=lambda c: (reached[award][(c, best)], colors.index(c)))
        out.append({"award": award, "colour": color, "value": best})
    return out
