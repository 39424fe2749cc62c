"""The table's languages: each device's strings, rule sentences and game terms, from the gettext catalogs."""
from __future__ import annotations

import re
import string
from functools import lru_cache
from types import SimpleNamespace

from companion.game.errors import MESSAGES
from companion.lang import catalogs, strings
from companion.lang.page_keys import PAGE_KEYS, SCRIPT_KEYS

DEFAULT = "en"


def _table(lang: str, context: str, source: dict) -> dict:
    """One table in one language: each key's translation where the catalog has one, else the English."""
    found = catalogs.load(lang)[0] if lang != DEFAULT else {}
    out = {}
    for key, text in source.items():
        msgid = text[0] if isinstance(text, tuple) else text
        english = text[:2] if isinstance(text, tuple) else text
        out[key] = found.get((context + key, msgid), english)
    return out


@lru_cache(maxsize=None)
def _tables() -> SimpleNamespace:
    """The catalogs read (Babel parses each .po), once, at the first sentence a device needs rather than
    before the server's first answer: most answers (a game's JSON, a socket's view) carry no sentence."""
    langs = (DEFAULT, *(code for code in catalogs.languages() if code != DEFAULT))
    return SimpleNamespace(
        LANGS=langs,
        # Game terms as each rulebook prints them; UI strings (a tuple is a message's plural forms); rule sentences.
        TERMS={lang: _table(lang, "term:", strings.TERMS) for lang in langs},
        UI={lang: _table(lang, "", strings.UI) for lang in langs},
        RULES={lang: _table(lang, "rule:", MESSAGES) for lang in langs},
        # The kinds of value the API names in "bad_type" refusals (English says them as they are).
        KIND_PHRASES={lang: _table(lang, "kind:", {k: k for k in strings.KINDS}) for lang in langs if lang != DEFAULT},
    )


def __getattr__(name: str):
    """LANGS, TERMS, UI, RULES and KIND_PHRASES, read from the catalogs when first asked for."""
    if name in ("LANGS", "TERMS", "UI", "RULES", "KIND_PHRASES"):
        return getattr(_tables(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The parameter that counts each plural UI message (the page scripts need it to pick a form).
COUNTS = {key: text[2] for key, text in strings.UI.items() if isinstance(text, tuple)}


def plural_expr(lang: str) -> str:
    """The gettext Plural-Forms expression of `lang` (the page scripts evaluate the same one)."""
    return catalogs.english_plural() if lang == DEFAULT else catalogs.load(lang)[1]


def _form(lang: str, text, source, params: dict) -> str:
    """The plural form of `text` that the count in `params` takes in `lang`; plain text comes back as it is.

    `source` is the English entry: (singular, plural, the parameter that counts)."""
    if not isinstance(text, tuple):
        return text
    singular, plural, count = source
    if text == (singular, plural):
        lang = DEFAULT  # not translated yet: English forms follow English's rule
    n = params.get(count)
    index = catalogs.plural_index(plural_expr(lang))(n if isinstance(n, int) else 2)
    return text[min(index, len(text) - 1)]


# Parameters that carry a game term; `cards` is a comma-separated list of terms.
_TERM_PARAMS = ("player", "to_act", "owner", "color", "district", "kind", "mode", "card", "a", "b", "other", "height")


def pick_lang(request) -> str:
    """The `lang` cookie when it names one of ours, else the browser's best Accept-Language match."""
    return pick(request.cookies.get("lang"), request.accept_languages)


def pick(cookie, accept_languages) -> str:
    """pick_lang from the request's two parts (kept by a live socket, which answers long after its request)."""
    if cookie in _tables().LANGS:
        return cookie
    return accept_languages.best_match(_tables().LANGS) or DEFAULT


def _lang(lang: str) -> str:
    return lang if lang in _tables().LANGS else DEFAULT


def term(lang: str, word) -> str:
    """A game term in the rulebook's language; anything unknown comes back as it was."""
    return _tables().TERMS[_lang(lang)].get(word, word) if isinstance(word, str) else str(word)


def t(lang: str, key: str, **params) -> str:
    """A UI string with its {params} filled in; falls back to English, then to the key itself."""
    lang = _lang(lang)
    text = _form(lang, _tables().UI[lang].get(key) or key, strings.UI.get(key), params)
    if not params:
        return text
    params = dict(params)
    for name in ("color", "player"):
        if name in params:
            params[name] = term(lang, params[name])
    if "kind" in params and lang in _tables().KIND_PHRASES:
        params["kind"] = _tables().KIND_PHRASES[lang].get(params["kind"], term(lang, params["kind"]))
    return _elide(lang, text, params).format_map(_Params(params))


_VOWEL = re.compile(r"[aeiouyàâäéèêëîïôöùûü]", re.IGNORECASE)


def _elide(lang: str, text: str, params: dict) -> str:
    """French elides "de" before a name that starts with a vowel: "la place d’Ann (Rouge)" (app.js fill() too)."""
    if lang != "fr":
        return text
    return re.sub(r"\bde \{(\w+)\}", lambda m: "d’{" + m.group(1) + "}"
                  if _VOWEL.match(str(params.get(m.group(1), ""))) else m.group(0), text)


class _Params(dict):
    """Leaves an unknown {name} in place instead of raising in the middle of a page."""

    def __missing__(self, key):
        return "{" + key + "}"


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def error_sentence(lang: str, rule_error, you: bool = False, named=None) -> str:
    """A RuleError as a sentence in `lang`, its colours, districts, kinds and cards translated too;
    `you`: said to the refused player on their own phone ("You cannot ..."), where a sentence for that exists;
    `named`: colour -> how the game names that seat ("Ann (Red)", views.said_name) for the players it names."""
    lang = _lang(lang)
    code = getattr(rule_error, "code", None)
    params = dict(getattr(rule_error, "params", {}) or {})
    template = _tables().RULES[lang].get(code)
    if you and ("you_" + str(code)) in _tables().UI[lang]:
        own = you and params.get("owner") == params.get("player") and f"you_{code}_own" in _tables().UI[lang]
        template = _tables().UI[lang][f"you_{code}_own" if own else "you_" + code]
    if template is None:
        return _sentence(str(rule_error))
    template = _form(lang, template, MESSAGES[code], params)
    if named is not None:   # the players of a game, named as every screen names them ("Ann (Red)")
        for name in _PLAY_PARAMS if code in _PLAY_CODES else _BOARD_PARAMS if str(code).startswith("board_") else ():
            if isinstance(params.get(name), str):
                params[name] = named(params[name])
    for name in _TERM_PARAMS:
        if name in params:
            params[name] = term(lang, params[name])
    if isinstance(params.get("to_act"), str):   # a colour standing for a player, mid-sentence: "Blue's turn"
        params["to_act"] = params["to_act"][:1].upper() + params["to_act"][1:]
    if isinstance(params.get("cards"), str):
        params["cards"] = ", ".join(term(lang, c.strip()) for c in params["cards"].split(","))
    return _sentence(_elide(lang, template, params).format_map(_Params(params)))


# The rule sentences about a move in play, whose {player}, {to_act} and {owner} are seats of the game (a finished
# board typed in: its {color} and {other}).
_PLAY_PARAMS = ("player", "to_act", "owner")
_BOARD_PARAMS = ("color", "other")
_PLAY_CODES = ("game_over", "unknown_player", "not_your_turn", "already_passed", "start_cannot_pass",
               "unknown_neighborhood", "district_removed", "already_built", "already_bid", "bad_value", "value_built",
               "value_on_board", "too_low", "not_adjacent", "across_water")

@lru_cache(maxsize=None)
def _keys_of(scripts: tuple[str, ...]) -> frozenset:
    return frozenset().union(*(SCRIPT_KEYS[name] for name in scripts))


# The rule sentences a phone says at the moment of a refused tap, without asking the server.
TAP_RULES = ("not_your_turn", "already_passed", "game_over", "district_removed", "already_built", "already_bid",
             "not_adjacent", "across_water", "too_low", "value_built", "value_on_board", "start_cannot_pass")


def js_strings(lang: str, scripts: tuple[str, ...] = ()) -> dict:
    """Everything the page scripts need in one language: the UI strings they ask for (plural ones as lists of forms,
    with the catalog's Plural-Forms expression and each one's count parameter), game terms and tap refusals.
    `scripts`: the page's own scripts, whose strings alone it carries (else every script's)."""
    lang = _lang(lang)
    # Only what a script can ask for (page_keys.py): the server's own sentences stay on the server (3.5 KB of 8.3).
    keys = _keys_of(scripts) if scripts else PAGE_KEYS
    ui = {key: list(text) if isinstance(text, tuple) else text for key, text in _tables().UI[lang].items()
          if key in keys}
    rules = {c: _tables().RULES[lang][c] for c in TAP_RULES}
    return {"ui": ui, "terms": dict(_tables().TERMS[lang]), "lang": lang, "rules": rules,
            "plural": plural_expr(lang), "counts": COUNTS}


def placeholders(text: str) -> set[str]:
    """The {names} a template expects (used to check that translations keep every parameter)."""
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


