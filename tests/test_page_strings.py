"""Every page carries the UI strings its scripts can ask for, and only those: the shipped list is what
tools/page_strings.py makes from static/*.js, no script asks for a string any other way, and every notice the
server sends (a view's `notice`, its `storage`) is among them."""
from __future__ import annotations

import ast
import gzip
import json
import re
from pathlib import Path

from companion.lang import i18n
from companion.lang.page_keys import PAGE_KEYS
from companion.lang.strings import UI
from tools import page_strings

ROOT = Path(__file__).resolve().parent.parent
# The only asks by a name the script did not write in quotes: a notice's key as the view sent it, the history's
# column keys from a quoted list, and tr's own lookup.
DYNAMIC = {"n.key", "k", "key"}


def test_the_shipped_list_is_what_the_scripts_ask_for():
    assert PAGE_KEYS == frozenset(page_strings.page_keys(UI, page_strings.scripts())), \
        "static/*.js changed: run .venv/bin/python tools/page_strings.py"
    assert (ROOT / "companion/lang/page_keys.py").read_text("utf-8") == page_strings.render(
        sorted(PAGE_KEYS), page_strings.by_script(UI))


def first_argument(text: str, start: int) -> str:
    """The call's first argument from `start` (just inside its bracket): up to a comma or a bracket at its own depth."""
    depth, quote, i = 0, None, start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            break
        i += 1
    return text[start:i].strip()


def test_no_script_asks_for_a_string_by_a_name_it_does_not_spell():
    """tr(x) and S.ui[x]: x spells its key in quotes (or each of its keys: a ternary, a table), builds it from a
    quoted part, or is one of the few known names."""
    odd = []
    for path in sorted((ROOT / "static").glob("*.js")):
        text = path.read_text("utf-8")
        for m in re.finditer(r"\btr\(|S\.ui\[", text):
            arg = first_argument(text, m.end())
            if '"' in arg or "'" in arg or arg in DYNAMIC:
                continue
            odd.append(f"{path.name}:{text[:m.start()].count(chr(10)) + 1}: {m.group(0)}{arg}")
    assert odd == []


def test_every_notice_the_server_sends_is_on_the_pages():
    """A dict's "key" in companion/ (a notice every screen announces, the storage's state) names a page string."""
    sent = set()
    for path in (ROOT / "companion").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values):
                    if isinstance(k, ast.Constant) and k.value == "key":
                        sent |= {c.value for c in ast.walk(v) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    sent &= set(UI)
    assert {"notice_host", "notice_host_table", "storage_full", "lost_bid"} <= sent   # the scan found them
    assert sent - PAGE_KEYS == set()


def test_a_page_carries_fewer_strings_than_the_server_has():
    ui = i18n.js_strings("de")["ui"]
    assert set(ui) == PAGE_KEYS and len(ui) < len(UI)
    assert "bad_origin" not in ui and "notice_seat_moved" in ui   # a server's refusal stays on the server
    print(f"strings on every page: {len(gzip.compress(json.dumps(i18n.js_strings('de')).encode()))} bytes gzipped")
