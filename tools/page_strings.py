"""Which UI strings the pages' scripts can ask for, read from static/*.js; writes companion/lang/page_keys.py.
Not run by the app: every page then carries those strings only, not the server's own sentences.

    .venv/bin/python tools/page_strings.py        # rewrites companion/lang/page_keys.py

A script names a string by its key in quotes, or builds it from a quoted part ("pi_level_" + level,
k + "_short"); the server names the notices it sends (SENT_PREFIXES). tests/test_page_strings.py checks the
shipped file is what this makes and that no script asks for a string any other way.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "companion" / "lang" / "page_keys.py"
SENT_PREFIXES = ("notice_", "storage_", "lost_")   # keys the views carry (a notice, the storage) for tr(n.key)

LITERAL = re.compile(r"""["']([a-z][a-z0-9_]*)["']""")
PREFIX = re.compile(r"""["']([a-z][a-z0-9_]*)["']\s*\+""")
SUFFIX = re.compile(r"""\+\s*["']([a-z0-9_]+)["']""")


def scripts() -> str:
    return "\n".join(p.read_text("utf-8") for p in sorted((ROOT / "static").glob("*.js")))


def page_keys(ui_keys, text: str) -> list[str]:
    """The keys of `ui_keys` the scripts in `text` can ask for: named, or built from a quoted part."""
    named = set(LITERAL.findall(text))
    starts = set(PREFIX.findall(text)) | set(SENT_PREFIXES)
    ends = set(SUFFIX.findall(text))
    return sorted(k for k in ui_keys if k in named or k.startswith(tuple(starts)) or k.endswith(tuple(ends)))


def render(keys: list[str]) -> str:
    lines = ['"""The UI strings the pages\' scripts can ask for: made by tools/page_strings.py from static/*.js."""',
             "", "PAGE_KEYS = frozenset({"]
    line = "   "
    for k in keys:
        item = f' "{k}",'
        if len(line) + len(item) > 116:
            lines.append(line)
            line = "   "
        line += item
    lines += [line, "})", ""]
    return "\n".join(lines)


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from companion.lang.strings import UI
    OUT.write_text(render(page_keys(UI, scripts())), "utf-8")
    print(f"{OUT.relative_to(ROOT)}: written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
