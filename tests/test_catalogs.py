"""The gettext catalogs: complete in every language, placeholders kept, plural forms right on the server and
in the page scripts, checked by Babel's and GNU gettext's own tools, and open to a new language."""
from __future__ import annotations

import gettext
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.plurals import PLURALS, get_plural
from babel.messages.pofile import read_po

from companion.lang.page_keys import PAGE_KEYS
from companion.lang import catalogs

from companion.lang import i18n

from companion.lang import learn_text, strings
from companion.game.errors import MESSAGES
from pages_helpers import EXPOSE, browser  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
POT = catalogs.DIRECTORY / "messages.pot"
LANGS = [code for code in i18n.LANGS if code != i18n.DEFAULT]


def read(path: Path):
    with open(path, "rb") as f:
        return read_po(f)


def source_messages() -> dict:
    """What `pybabel extract -F babel.cfg` finds in the source today: {msgctxt, msgid: message}."""
    with open(ROOT / "babel.cfg") as f:
        method_map, options_map = parse_mapping_cfg(f)
    found = {}
    for _file, _line, message, _comments, context in extract_from_dir(str(ROOT), method_map, options_map):
        found[(context, message)] = message
    return found


def test_babel_finds_every_table_entry_and_the_template_is_up_to_date():
    extracted = source_messages()
    # every UI key, term, rule sentence, value kind and line of the "How to play" card, once each
    assert len(extracted) == (len(strings.UI) + len(strings.TERMS) + len(MESSAGES) + len(strings.KINDS)
                              + len(learn_text.LEARN))
    assert ("setup_title", "New game") in extracted
    assert ("games_found", ("{n} game", "{n} games")) in extracted
    assert ("rule:removed_count", MESSAGES["removed_count"][:2]) in extracted
    template = {(m.context, m.id if isinstance(m.id, str) else tuple(m.id)) for m in read(POT) if m.id}
    assert template == set(extracted), "messages.pot is stale: run the pybabel extract line in companion/lang/strings.py"


@pytest.mark.parametrize("lang", LANGS)
def test_every_message_is_translated_with_every_placeholder_kept(lang):
    template = [m for m in read(POT) if m.id]
    catalog = read(catalogs.DIRECTORY / lang / "LC_MESSAGES" / "messages.po")
    assert catalog.num_plurals == get_plural(lang).num_plurals
    assert catalog.plural_expr == get_plural(lang).plural_expr, "Plural-Forms differs from CLDR's rule"
    assert not catalog.obsolete, f"{lang}: obsolete entries left behind: {list(catalog.obsolete)}"
    problems = []
    for want in template:
        got = catalog.get(want.id, context=want.context)
        where = f"{lang} {want.context}"
        if got is None:
            problems.append(f"{where}: missing")
            continue
        if got.fuzzy:
            problems.append(f"{where}: fuzzy")
        if want.pluralizable:
            ids = [i18n.placeholders(want.id[0]), i18n.placeholders(want.id[1])]
            forms = list(got.string)
            if len(forms) != catalog.num_plurals or not all(forms):
                problems.append(f"{where}: {catalog.num_plurals} plural forms wanted, got {forms}")
            key = want.context.removeprefix("rule:")
            count = (MESSAGES[key] if want.context.startswith("rule:") else strings.UI[key])[2]
            for form in forms:
                # a form may say its count in words ("un seul"), never drop or invent any other placeholder
                if i18n.placeholders(form) - {count} != ids[1] - {count}:
                    problems.append(f"{where}: placeholders {sorted(i18n.placeholders(form))} in {form!r}")
        else:
            if not got.string:
                problems.append(f"{where}: untranslated")
            elif i18n.placeholders(got.string) != i18n.placeholders(want.id):
                problems.append(f"{where}: placeholders {sorted(i18n.placeholders(got.string))} in {got.string!r}")
    used = catalogs.load(lang)[0]   # what the server really shows: every line, none set aside as broken
    problems += [f"{lang} {m.context}: not used" for m in template
                 if (m.context, m.id[0] if m.pluralizable else m.id) not in used]
    checked = [f"{lang} {m.context}: {err}" for m, errors in catalog.check() for err in errors]
    assert not problems + checked, "\n".join(problems + checked)


@pytest.mark.parametrize("lang", LANGS)
def test_gnu_msgfmt_accepts_the_catalog(lang, tmp_path):
    """The translators' own tool: `msgfmt --check` (header, plural forms, python-brace-format placeholders)."""
    po = catalogs.DIRECTORY / lang / "LC_MESSAGES" / "messages.po"
    done = subprocess.run(["msgfmt", "--check", "--statistics", "-o", str(tmp_path / "m.mo"), str(po)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "untranslated" not in done.stderr and "fuzzy" not in done.stderr, done.stderr


@pytest.mark.parametrize("lang", LANGS)
def test_the_server_says_what_standard_gettext_says(lang):
    """Compiled to .mo and read by Python's own gettext, every key and every count reads as i18n.t says."""
    buf = io.BytesIO()
    write_mo(buf, read(catalogs.DIRECTORY / lang / "LC_MESSAGES" / "messages.po"))
    buf.seek(0)
    gnu = gettext.GNUTranslations(buf)
    for key, text in strings.UI.items():
        # every placeholder filled with a marker no translation step touches, the count with each n
        params = {name: f"<{name}>" for name in i18n.placeholders(" ".join(text[:2] if isinstance(text, tuple) else [text]))}
        if isinstance(text, tuple):
            for n in range(0, 203):
                params[text[2]] = n
                assert i18n.t(lang, key, **params) == gnu.npgettext(key, text[0], text[1], n).format(**params), (key, n)
        else:
            assert i18n.t(lang, key, **params) == gnu.pgettext(key, text).format(**params), key
    for word, english in strings.TERMS.items():
        assert i18n.term(lang, word) == gnu.pgettext("term:" + word, english)


def test_plural_rule_sentences_pick_their_form():
    from companion.game.errors import RuleError

    one, two = RuleError("removed_count", count=3, need=1, got=0), RuleError("removed_count", count=2, need=2, got=1)
    assert str(one) == "3 players must remove 1 peripheral district, not 0"
    assert i18n.error_sentence("de", one) == "Bei 3 Spielern wird 1 Peripherie-Stadtteil nicht genutzt, nicht 0."
    assert i18n.error_sentence("de", two) == "Bei 2 Spielern werden 2 Peripherie-Stadtteile nicht genutzt, nicht 1."
    # French counts 0 and 1 alike (CLDR "one"), English and German do not
    none = RuleError("token_district_count", district="north", need=0, got=1)
    assert str(none) == "the north district takes 0 tokens, not 1"
    assert i18n.error_sentence("fr", none) == "L’arrondissement nord reçoit 0 jeton, pas 1."


def test_the_page_scripts_evaluate_every_plural_rule_babel_knows(browser, server):  # noqa: F811
    """The pages read Plural-Forms with their own small parser (the CSP forbids eval): for every language in
    Babel's table, and each count from 0 to 1000, it must pick the form Python's gettext picks."""
    # plus a few longer ones from the GNU gettext manual (Arabic, Slovenian, Irish, Romanian, Maltese, Welsh)
    manual = ["(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5)",
              "(n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3)",
              "n==1 ? 0 : n==2 ? 1 : (n>2 && n<7) ? 2 :(n>6 && n<11) ? 3 : 4",
              "(n==1 ? 0 : (n==0 || (n%100 > 0 && n%100 < 20)) ? 1 : 2)",
              "(n==1 ? 0 : n==0 || ( n%100>1 && n%100<11) ? 1 : (n%100>10 && n%100<20 ) ? 2 : 3)",
              "(n==1) ? 0 : (n==2) ? 1 : (n != 8 && n != 11) ? 2 : 3", "0", "!(n == 1)"]
    exprs = sorted({expr for _n, expr in PLURALS.values()} | {get_plural(code).plural_expr for code in i18n.LANGS}
                   | set(manual))
    counts = list(range(0, 1001)) + [1011, 1101, 10001, 100000, 1000001]
    page = browser.new_page()
    try:
        page.goto(server.origin + "/")
        page.evaluate(EXPOSE)   # app.js's M, as a module would import it
        got = page.evaluate("([exprs, counts]) => exprs.map(e => counts.map(n => M.pluralIndex(e, n)))",
                            [exprs, counts])
    finally:
        page.close()
    python = {e: gettext.c2py(e) for e in exprs}   # compiled once each (30,000 compilations took 80 s under load)
    wrong = [(e, n, got[i][j], python[e](n)) for i, e in enumerate(exprs) for j, n in enumerate(counts)
             if got[i][j] != python[e](n)]
    assert len(exprs) > 20 and not wrong, wrong[:10]


@pytest.mark.parametrize("lang", list(i18n.LANGS))
def test_pages_and_server_say_the_same_plural_sentences(browser, server, lang):  # noqa: F811
    ctx = browser.new_context(locale=lang)
    page = ctx.new_page()
    try:
        page.goto(server.origin + "/")
        page.evaluate(EXPOSE)   # app.js's M, as a module would import it
        # The plural sentences a page carries (companion/lang/page_keys.py); the server's own stay on the server.
        plural = [k for k, v in strings.UI.items() if isinstance(v, tuple) and k in PAGE_KEYS]
        assert len(plural) >= 5
        asked = [(k, {strings.UI[k][2]: n, "district": "D", "i": 1, "total": 5}) for k in plural for n in (0, 1, 2, 7)]
        said = page.evaluate("asked => asked.map(([k, p]) => M.tr(k, p))", asked)
    finally:
        ctx.close()
    assert said == [i18n.t(lang, k, **p) for k, p in asked]
    assert len(set(said)) > len(plural)   # the forms really differ


def test_a_translator_adds_a_language_with_pybabel_alone(tmp_path):
    """`pybabel init` and a translated line are all a new language takes: it is offered, its strings are used,
    its plural rule counts, and what is not translated yet falls back to English."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "companion", site / "companion", ignore=shutil.ignore_patterns("__pycache__"))
    tdir = site / "companion" / "lang" / "translations"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "init", "-i", str(tdir / "messages.pot"),
                    "-d", str(tdir), "-l", "pl"], check=True, capture_output=True, timeout=120)
    po = tdir / "pl" / "LC_MESSAGES" / "messages.po"
    text = po.read_text()
    text = text.replace('msgctxt "setup_title"\nmsgid "New game"\nmsgstr ""', 'msgctxt "setup_title"\nmsgid "New game"\nmsgstr "Nowa gra"')
    text = text.replace('msgid "{n} game"\nmsgid_plural "{n} games"\nmsgstr[0] ""\nmsgstr[1] ""\nmsgstr[2] ""',
                        'msgid "{n} game"\nmsgid_plural "{n} games"\nmsgstr[0] "{n} gra"\nmsgstr[1] "{n} gry"\nmsgstr[2] "{n} gier"')
    po.write_text(text)
    probe = ("from companion.lang import i18n; print(i18n.LANGS); print(i18n.t('pl', 'setup_title'));"
             "print([i18n.t('pl', 'games_found', n=n) for n in (1, 3, 5, 22, 25)]); print(i18n.t('pl', 'pass'))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env={"PYTHONPATH": str(site)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    langs, title, counted, untranslated = done.stdout.splitlines()
    assert "'pl'" in langs and title == "Nowa gra"
    assert counted == str(["1 gra", "3 gry", "5 gier", "22 gry", "25 gier"])
    assert untranslated == strings.UI["pass"]


def test_a_translators_slip_costs_a_line_or_a_language_never_the_start(tmp_path):
    """A line with broken braces or a placeholder the English lacks shows English; a catalog that cannot be read
    leaves its language out; the server still starts and serves every page (the Pi must not crash-loop)."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "companion", site / "companion", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("templates", "static"):    # where the wheel puts them
        shutil.copytree(ROOT / folder, site / "companion" / folder)
    tdir = site / "companion" / "lang" / "translations"
    de = tdir / "de" / "LC_MESSAGES" / "messages.po"
    text = de.read_text()
    for key, broken in (("confirm_bid", "Gebot {value auf {nb}"), ("to_act", "{spieler} ist am Zug"),
                        ("game", "Partie {id!x}")):
        english = strings.UI[key]
        start = text.index(f'msgctxt "{key}"\nmsgid "{english}"\nmsgstr "')
        end = text.index("\n", text.index("msgstr", start))
        text = text[:start] + f'msgctxt "{key}"\nmsgid "{english}"\nmsgstr "{broken}"' + text[end:]
    de.write_text(text)
    (tdir / "xx" / "LC_MESSAGES").mkdir(parents=True)
    (tdir / "xx" / "LC_MESSAGES" / "messages.po").write_bytes(b'msgid ""\nmsgstr "\xff\xfe\x00 not text\n')
    probe = """
import logging, sys
logging.basicConfig(stream=sys.stdout, level=logging.WARNING, format="warn %(message)s")
from companion import create_app
from companion.lang import i18n
print(i18n.LANGS)
print(i18n.t('de', 'confirm_bid', value=7, nb='C11'))
print(i18n.t('de', 'to_act', player='red'))
print(i18n.t('de', 'game', id='AB12C'))
print(i18n.t('de', 'pass'))
client = create_app({"DB": sys.argv[1], "LEDS": None, "JOIN_URL": "http://192.0.2.1:8000"}).test_client()
print([client.get(p, headers={"Accept-Language": "de"}).status_code for p in ("/", "/table", "/g/AB12C", "/history")])
"""
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "db.sqlite3")], cwd=tmp_path,
                          env={"PYTHONPATH": str(site), "COMPANION_LEDS": "off"}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    said = [line for line in out if not line.startswith("warn ")]
    warned = "\n".join(line for line in out if line.startswith("warn "))
    assert said[0] == str(("en", "de", "fr")), "the unreadable catalog is left out, the others stay"
    assert said[1] == "Bid 7 on C11" and said[2] == "Rot to act" and said[3] == "Game AB12C"
    assert said[4] == i18n.t("de", "pass") != strings.UI["pass"]     # the rest of German is untouched
    assert said[5] == str([200, 200, 200, 200]), done.stdout
    assert "xx catalog cannot be read" in warned and "confirm_bid" in warned and "to_act" in warned and "game" in warned


@pytest.mark.parametrize("lang,said", [("en", "You cannot act now: it is Blue's turn."),
                                       ("de", "Du kannst jetzt nicht handeln: Blau ist am Zug."),
                                       ("fr", "Vous ne pouvez pas jouer maintenant : c’est au tour de Bleu.")])
def test_whose_turn_it_is_names_the_player_with_a_capital(lang, said):
    """The colour standing for the player to act is a name, never "it is blue's turn" (issue 37 item 4)."""
    from companion.game.errors import RuleError
    from companion.lang import i18n
    assert i18n.error_sentence(lang, RuleError("not_your_turn", player="red", to_act="blue"), you=True) == said
