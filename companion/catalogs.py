"""The gettext catalogs: how pybabel finds the English source, and the translations read back at start."""
from __future__ import annotations

import ast
import gettext
import string
from functools import lru_cache
from pathlib import Path

DIRECTORY = Path(__file__).with_name("translations")
DOMAIN = "messages"

# The keyed tables the extractor reads, and the msgctxt prefix of each: UI keys stand alone, the other
# tables say which one they are. Value kinds are keyed by their English phrase, so they share one context.
SECTIONS = {"UI": "", "TERMS": "term:", "MESSAGES": "rule:", "KINDS": "kind"}

# What a translator needs to know about a placeholder (written as a translator comment beside the message).
NOTES = {
    "player": "a player's colour, already translated (or their name)",
    "to_act": "a player's colour, already translated",
    "owner": "a player's colour, already translated",
    "color": "a player's colour, already translated",
    "neighborhood": "a neighborhood code such as C11",
    "nb": "a neighborhood code such as C11",
    "last": "a neighborhood code such as C11",
    "district": "a district (center, north, ...), already translated",
    "value": "a building value, 1 to 13",
    "game": "a game's id",
    "code": "a short code typed on another device",
}


def _notes(*texts: str) -> list[str]:
    names = sorted({f for text in texts for _, f, _, _ in string.Formatter().parse(text) if f})
    return [f"{{{n}}}: {NOTES[n]}" for n in names if n in NOTES]


def extract(fileobj, keywords, comment_tags, options):
    """Babel extraction method (see babel.cfg): each keyed table entry as a pgettext/npgettext call."""
    for node in ast.parse(fileobj.read()).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id in SECTIONS):
            continue
        prefix = SECTIONS[node.targets[0].id]
        if isinstance(node.value, ast.Tuple):
            for item in node.value.elts:
                yield item.lineno, "pgettext", (prefix, ast.literal_eval(item)), []
            continue
        for key, value in zip(node.value.keys, node.value.values):
            context, text = prefix + ast.literal_eval(key), ast.literal_eval(value)
            if isinstance(text, tuple):
                yield key.lineno, "npgettext", (context, text[0], text[1]), _notes(text[0], text[1])
            else:
                yield key.lineno, "pgettext", (context, text), _notes(text)


def languages() -> tuple[str, ...]:
    """Every language with a catalog, so a translator's new messages.po is picked up with no code change."""
    return tuple(sorted(p.parent.parent.name for p in DIRECTORY.glob(f"*/LC_MESSAGES/{DOMAIN}.po")))


@lru_cache(maxsize=None)
def load(lang: str) -> tuple[dict, str]:
    """{(msgctxt, msgid): msgstr or plural forms} of one catalog, and its plural expression.

    Fuzzy and untranslated entries are left out, as msgfmt leaves them out: English is shown instead."""
    from babel.messages.pofile import read_po

    with open(DIRECTORY / lang / "LC_MESSAGES" / f"{DOMAIN}.po", "rb") as f:
        catalog = read_po(f, locale=lang)
    found = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if message.pluralizable:
            forms = tuple(message.string)
            if all(forms) and len(forms) == catalog.num_plurals:
                found[(message.context, message.id[0])] = forms
        elif message.string:
            found[(message.context, message.id)] = message.string
    return found, catalog.plural_expr


@lru_cache(maxsize=None)
def english_plural() -> str:
    from babel.messages.plurals import get_plural

    return get_plural("en").plural_expr


@lru_cache(maxsize=None)
def plural_index(expr: str):
    """The gettext Plural-Forms expression as a function from a count to the index of its form."""
    return gettext.c2py(expr)
