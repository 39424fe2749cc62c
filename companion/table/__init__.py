"""The table: every request becomes check, append to the log, change state, tell phones, set LEDs (commit.py)."""
from companion.table.commit import Table, device_id
from companion.table.game import Game

__all__ = ["Game", "Table", "device_id"]
