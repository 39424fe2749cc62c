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


def _set(keys: list[str], indent: str = "   ") -> list[str]:
    lines, line = [], indent
    for k in keys:
        item = f' "{k}",'
        if len(line) + len(item) > 116:
            lines.append(line)
            line = indent
        line += item
    return lines + [line]


def render(keys: list[str], by_script: dict[str, list[str]] | None = None) -> str:
    """PAGE_KEYS: every script's keys; SCRIPT_KEYS: each script's own, so a page carries only what its scripts
    can ask for (the phone's page, whose 60 KB budget the others' strings would cost 1.2 KB gzipped of)."""
    lines = ['"""The UI strings the pages\' scripts can ask for: made by tools/page_strings.py from static/*.js."""',
             "", "PAGE_KEYS = frozenset({", *_set(keys), "})", ""]
    if by_script:
        lines.append("SCRIPT_KEYS = {")
        for name, own in sorted(by_script.items()):
            lines += [f'    "{name}": frozenset({{', *_set(own, "       "), "    }),"]
        lines += ["}", ""]
    return "\n".join(lines)


def by_script(ui_keys) -> dict[str, list[str]]:
    return {p.name: page_keys(ui_keys, p.read_text("utf-8")) for p in sorted((ROOT / "static").glob("*.js"))}


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from companion.lang.strings import UI
    OUT.write_text(render(page_keys(UI, scripts()), by_script(UI)), "utf-8")
    print(f"{OUT.relative_to(ROOT)}: written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
