"""Names players and hosts type (seats, saved layouts): printable, trimmed, at least one visible character."""
from __future__ import annotations

import unicodedata
from typing import Optional

from companion.limits import NAME_LENGTH as LIMIT  # the forms' maxlength says the same

# Control (Cc), format (Cf: bidi overrides and isolates, zero-width characters), surrogates (Cs),
# private use (Co), unassigned (Cn), line and paragraph separators: none belongs in a name.
_REFUSED = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_VISIBLE = ("L", "N", "P", "S")   # letters, digits, punctuation, symbols: what a player can see


def clean(value, limit: int = LIMIT) -> Optional[str]:
    """The name as it will be kept (trimmed, inner spaces single), or None when it is not a name."""
    if not isinstance(value, str):
        return None
    if len(value) > 4 * limit or any(unicodedata.category(ch) in _REFUSED for ch in value):
        return None
    text = unicodedata.normalize("NFC", " ".join(value.split()))
    if not 0 < len(text) <= limit:
        return None
    if not any(unicodedata.category(ch)[0] in _VISIBLE for ch in text):
        return None
    return text


def same(a: str, b: str) -> bool:
    """Two names a table would confuse: equal ignoring case."""
    return a.casefold() == b.casefold()
