"""The table: every request becomes check, append to the log, change state, tell phones, set LEDs (commit.py);
`Table` (facade.py) is the one object web code asks, over the parts that do it."""
from companion.table.commit import device_id
from companion.table.facade import Table

__all__ = ["Table", "device_id"]
