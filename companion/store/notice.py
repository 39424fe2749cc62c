"""What every screen must be told about the storage: read-only, full, or the last acknowledged action lost."""
from __future__ import annotations

from typing import Callable, Optional

from companion.store import events


def storage_notice(store, seq_of: Callable[[str], Optional[int]]) -> Optional[dict]:
    """The notice as a key and its parameters (the same in every view and page), or None while all is well.

    `seq_of(game)`: that game's count of events in memory (None when not loaded): a lost action is said
    until its game has been played past it again."""
    if store.read_only:
        return {"key": "storage_read_only", "path": store.read_only}
    if getattr(store, "full", False):
        return {"key": "storage_full"}
    lost = store.lost
    if not lost:
        return None
    seq = seq_of(lost["game"])
    if seq is not None and seq >= lost["seq"]:
        return None
    body = lost.get("body") or {}
    if lost.get("kind") == events.Action.kind and isinstance(body.get("player"), str):
        if body.get("pass"):
            return {"key": "lost_pass", "player": body["player"]}
        if body.get("bid"):
            return {"key": "lost_bid", "player": body["player"], "value": body.get("value"), "nb": body["bid"]}
    return {"key": "lost_other"}
