"""Our scripts and styles as a phone needs them: without the comments and indentation written for the people who
read static/ (a quarter of what a page sends, gzipped: the table screen at the end of a game 63.4 KB -> 53 KB).

Why not a minifier (rjsmin, rcssmin): they are compiled, so each would need a wheel for the Pi's two architectures
and the locked install, for a few more per cent; and a renamed, joined file is harder to read in a phone's console.
This only drops whole lines that are comments, a // comment after code, and the spaces before a line, which is safe
for the files we write: a line that starts with // or /* outside a string is a comment in JavaScript (a string cannot
run across lines unless the line before ends with a backslash, and such lines are kept as they are), and a template
literal's lines (between an opening and a closing backquote) are kept as they are too. A " // " after code goes only
where the code before it closes every quote it opens (so it is not inside a string) and holds no regular expression
literal's slash-quote mix we could misread: otherwise the line is kept whole. The pages' tests in three engines run these
very bytes; tests/test_slim.py checks the rules on the cases that could break them."""
from __future__ import annotations

SLIMMED = ("text/javascript", "application/javascript", "text/css")


def slim(text: str, css: bool = False) -> str:
    """`text` without whole-line comments, blank lines and leading spaces; the rest exactly as written."""
    out: list[str] = []
    in_comment = in_template = False
    carried = False   # the line before ended with a backslash: this one continues a string
    for line in text.split("\n"):
        if in_template or carried:
            out.append(line)
            in_template ^= _backquotes(line) % 2 == 1
            carried = not css and line.endswith("\\")
            continue
        bare = line.strip()
        if in_comment:
            in_comment = "*/" not in bare
            if not in_comment and not bare.endswith("*/"):
                out.append(bare[bare.index("*/") + 2:].strip())   # code after a block comment's end
            continue
        if bare.startswith("/*"):
            in_comment = "*/" not in bare[2:]
            if not in_comment and not bare.endswith("*/"):
                out.append(line)   # a short comment before code on one line: left as written
            continue
        if not bare or (not css and bare.startswith("//")):
            continue
        if not css:
            bare = _code_only(bare)
        out.append(bare)
        in_template = not css and _backquotes(bare) % 2 == 1
        carried = not css and bare.endswith("\\")
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _code_only(line: str) -> str:
    """A line of code without the // comment after it, when that is surely a comment (see the module's note)."""
    at = line.find(" // ")
    if at < 0:
        return line
    code = line[:at].rstrip()
    if any(code.count(q) % 2 for q in "\"'`") or "\\" in code or ("/" in code and any(q in code for q in "\"'`")):
        return line
    return code


def _backquotes(line: str) -> int:
    """Backquotes that open or close a template literal (not escaped ones)."""
    return line.count("`") - line.count("\\`")
