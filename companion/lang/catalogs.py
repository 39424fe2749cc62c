"""The gettext catalogs: how pybabel finds the English source, and the translations read back when a device first needs a sentence."""
from __future__ import annotations

import ast
import gettext
import io
import logging
import string
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

DIRECTORY = Path(__file__).with_name("translations")
DOMAIN = "messages"

# The keyed tables the extractor reads, and the msgctxt prefix of each: UI keys stand alone, the other
# tables say which one they are. Value kinds are a tuple, each keyed by its English phrase. LEARN is the "How to
# play" card (companion/lang/learn_text.py), served on its own page and never handed to the page scripts.
SECTIONS = {"UI": "", "TERMS": "term:", "MESSAGES": "rule:", "KINDS": "kind:", "LEARN": "learn:"}

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
                phrase = ast.literal_eval(item)
                yield item.lineno, "pgettext", (prefix + phrase, phrase), []
            continue
        for key, value in zip(node.value.keys, node.value.values):
            context, text = prefix + ast.literal_eval(key), ast.literal_eval(value)
            if isinstance(text, tuple):
                yield key.lineno, "npgettext", (context, text[0], text[1]), _notes(text[0], text[1])
            else:
                yield key.lineno, "pgettext", (context, text), _notes(text)


def _fields(text: str) -> set[tuple]:
    """Each {field} of a text as (name, format spec, conversion); ValueError where its braces do not parse."""
    return {(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(text) if f is not None}


def _fits(msgstr: str, msgids) -> bool:
    """A translation the pages can fill: its braces parse, each field written as the English writes it."""
    try:
        return _fields(msgstr) <= set().union(*(_fields(text) for text in msgids))
    except ValueError:
        return False


@lru_cache(maxsize=None)
def load(lang: str) -> tuple[dict, str]:
    """{(msgctxt, msgid): msgstr or plural forms} of one catalog, and its plural expression.

    Fuzzy and untranslated entries are left out, as msgfmt leaves them out: English is shown instead. So is a
    line whose braces would break its sentence, and a whole catalog that cannot be read: a translator's slip
    costs that language a line or itself, never the server its start."""
    from babel.messages.pofile import read_po   # Babel only once a sentence is asked for (see i18n._tables)

    try:
        with open(DIRECTORY / lang / "LC_MESSAGES" / f"{DOMAIN}.po", "rb") as f:
            catalog = read_po(f, locale=lang)
        expr = catalog.plural_expr
        plural_index(expr)
    except Exception as e:   # noqa: BLE001 - any unreadable catalog is the same fact: English instead
        log.warning("The %s catalog cannot be read (%s): that language is left out.", lang, e)
        return {}, ""
    found = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        ids = message.id if message.pluralizable else (message.id,)
        forms = tuple(message.string) if message.pluralizable else (message.string,)
        if not all(forms) or (message.pluralizable and len(forms) != catalog.num_plurals):
            continue
        if not all(_fits(form, ids) for form in forms):
            log.warning("%s: %s: %r breaks its placeholders; English is shown instead.", lang, message.context, forms)
            continue
        found[(message.context, ids[0])] = forms if message.pluralizable else forms[0]
    return found, expr


def languages() -> tuple[str, ...]:
    """Every language with a catalog that can be read, so a translator's new messages.po is picked up with no
    code change (and a broken one is left out)."""
    found = sorted(p.parent.parent.name for p in DIRECTORY.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    return tuple(code for code in found if load(code)[1])


@lru_cache(maxsize=None)
def english_plural() -> str:
    from babel.messages.plurals import get_plural

    return get_plural("en").plural_expr


@lru_cache(maxsize=None)
def plural_index(expr: str):
    """The gettext Plural-Forms expression as a function from a count to the index of its form: a one-message
    catalog with that header, written by Babel's write_mo and read by gettext.GNUTranslations, whose ngettext
    answers the index (documented API both; gettext.c2py, which does the same in one call, is not documented).
    Six forms, the most any CLDR language has; an expression gettext refuses raises ValueError here too."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    header = expr.replace("\\", "\\\\").replace('"', '\\"')
    po = (f'msgid ""\nmsgstr "Plural-Forms: nplurals=6; plural={header};\\n"\n\nmsgid "x"\nmsgid_plural "y"\n'
          + "".join(f'msgstr[{i}] "{i}"\n' for i in range(6)))
    compiled = io.BytesIO()
    write_mo(compiled, read_po(io.StringIO(po)))
    compiled.seek(0)
    forms = gettext.GNUTranslations(compiled)
    return lambda n: int(forms.ngettext("x", "y", n))
