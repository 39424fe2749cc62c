"""The map as the pages draw it: read once from the shipped drawing, nothing computed while serving.

The drawing (game/data/board-map-drawn.json) is made offline by tools/boardmap.py from the board's own topology;
tests/test_boardmap.py checks that recomputing it gives exactly the shipped file.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

DRAWN = "data/board-map-drawn.json"


@lru_cache(maxsize=1)
def drawn_file() -> dict:
    """Both orientations, parsed once: a Pi Zero would spend seconds computing them."""
    return json.loads(resources.files("companion.game").joinpath(DRAWN).read_text("utf-8"))


def shipped(portrait: bool = False) -> dict:
    """The phone's (portrait) or the table screen's drawing."""
    return drawn_file()["phone" if portrait else "table"]
