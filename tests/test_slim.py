"""Our scripts and styles leave the server without their comments and indentation (companion/web/slim.py): what is
dropped, what must be kept word for word, and that every shipped script, as served, still parses in Chromium."""
from __future__ import annotations

import gzip
import re

from companion.web.slim import slim
from pages_helpers import browser  # noqa: F401  (fixture)
from server_helpers import ROOT
from test_compress import fetch

SCRIPTS = sorted((ROOT / "static").glob("*.js"))
STYLES = sorted((ROOT / "static").glob("*.css"))


def test_whole_line_comments_blank_lines_indentation_and_a_comment_after_code_go():
    src = "/* The why,\n   over two lines. */\nfunction f(a) {\n  // a note\n\n    return a + 1;   // gone: after code\n}\n"
    assert slim(src) == "function f(a) {\nreturn a + 1;\n}\n"


def test_a_double_slash_that_may_be_in_a_string_or_a_pattern_keeps_its_line_whole():
    kept = ['var u = "http://x/y";   // a URL in a string',
            "say('one // two');",
            "var s = 'it' + \"'s // here\";",
            "var r = s.replace(/\"/g, '');  // a pattern beside a quote",
            "var t = a.split('\\\\'); // an escape",
            "x = `a // b`;"]
    for line in kept:
        assert slim(line + "\n") == line + "\n", line
    assert slim("go(a / b);   // half\n") == "go(a / b);\n"   # a slash with no quote on the line: code, then comment


def test_a_template_literal_and_a_continued_string_are_kept_as_written():
    src = ("const t = `first\n  // not a comment: text\n\n  /* text too */`;\n  // gone\n"
           "const s = \"one \\\n  // still the string\";\n  x();\n")
    assert slim(src) == ("const t = `first\n  // not a comment: text\n\n  /* text too */`;\n"
                         "const s = \"one \\\n  // still the string\";\nx();\n")


def test_code_after_a_block_comment_stays():
    assert slim("/* a\n b */ go();\n/* c */ stay();\n") == "go();\n/* c */ stay();\n"


def test_styles_keep_double_slashes_which_are_not_comments_there():
    src = "/* the map */\n.a {\n  background: url(//x/y.svg);\n}\n"
    assert slim(src, css=True) == ".a {\nbackground: url(//x/y.svg);\n}\n"


def test_slimming_twice_changes_nothing_more():
    for path in SCRIPTS + STYLES:
        once = slim(path.read_text("utf-8"), css=path.suffix == ".css")
        assert slim(once, css=path.suffix == ".css") == once, path.name


MODULE_LINE = re.compile(r'^(import \{ [\w$, ]+ \} from "\./[\w-]+\.js";|import "\./[\w-]+\.js";|export \{ [\w$, ]+ \};)$',
                         re.M)


def test_every_script_as_served_parses_and_is_smaller(server, browser):  # noqa: F811
    page = browser.new_page()
    try:
        saved = []
        for path in SCRIPTS:
            r = fetch(server, f"/static/{path.name}", {"Accept-Encoding": "gzip"})
            assert r.status == 200, path.name
            served = gzip.decompress(r.body).decode() if r.getheader("Content-Encoding") == "gzip" else r.body.decode()
            assert served == slim(path.read_text("utf-8")), path.name
            # A module's import and export lines are its only lines a function body may not hold: each of the
            # forms we write is blanked (and no other may remain), the rest parsed as JavaScript.
            body = MODULE_LINE.sub("", served)
            assert not re.search(r"^\s*(import\b(?!\()|export\b)", body, re.M), path.name
            error = page.evaluate("src => { try { new Function(src); return null } catch (e) { return String(e) } }",
                                  body)
            assert error is None, (path.name, error)
            saved.append(len(gzip.compress(path.read_bytes())) - len(gzip.compress(served.encode())))
        assert all(n > 0 for n in saved), saved
        plain = fetch(server, "/static/table.css", {})   # no gzip asked: the same slim text
        assert plain.body.decode() == slim((ROOT / "static" / "table.css").read_text("utf-8"), css=True)
    finally:
        page.close()


def test_the_socket_opener_written_into_the_phone_page_is_the_slim_one_its_hash_admits(server):
    from server_helpers import Phone, create_game
    gid = create_game(Phone(server), ("blue", "red"), seed=3)
    r = fetch(server, f"/g/{gid}", {})
    body = r.body.decode()
    inline = re.search(r"<script data-game=\"[^\"]+\">(.*?)</script>", body, re.S).group(1)
    assert inline == slim((ROOT / "static" / "socket.js").read_text("utf-8"))
    from companion.web.guard import script_hash
    assert script_hash(inline) in r.getheader("Content-Security-Policy")
