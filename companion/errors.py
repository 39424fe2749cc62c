"""Refusals that are not the rules': a leaf every layer may raise, so nothing imports the table to say no."""
from __future__ import annotations


class Refused(Exception):
    """A request the table turns down for a reason other than the rules (who you are, what phase)."""

    def __init__(self, status: int, key: str, **params):
        super().__init__(key)
        self.status = status
        self.key = key
        self.params = params
