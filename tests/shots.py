"""Where the page tests put their screenshots (PAGES_SCREENSHOTS=dir), and which of them the docs keep.

docs/screenshots holds only the pictures README.md and docs/*.md link: each made by a test from the product as it is.
Every other screenshot goes to a folder outside docs/. Asked for docs/screenshots (PAGES_SCREENSHOTS=docs/screenshots),
the tests write every picture to screenshots/ at the root (ignored by git) and, at the session's end, copy the ones
the docs link into docs/screenshots (conftest.py)."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "screenshots"
ASIDE = ROOT / "screenshots"          # ignored (.gitignore): every picture the docs do not link
MOST = 40                             # the docs link at most this many pictures
LINK = re.compile(r"screenshots/([^)\"' `]+\.png)")


def linked() -> set[str]:
    """The file names in docs/screenshots that README.md or a page of docs/ links."""
    names: set[str] = set()
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        names.update(LINK.findall(doc.read_text(encoding="utf-8")))
    return names


def folder(asked: Optional[str] = None) -> Optional[str]:
    """The folder the tests write screenshots to: none unless asked; never docs/ itself."""
    asked = os.environ.get("PAGES_SCREENSHOTS") if asked is None else asked
    if not asked:
        return None
    where = Path(asked).resolve()
    if where == DOCS or DOCS in where.parents or where == DOCS.parent:
        where = ASIDE
    where.mkdir(parents=True, exist_ok=True)
    return str(where)


def publish(asked: Optional[str] = None) -> list[str]:
    """After a session asked for docs/screenshots: the linked pictures it made, copied there. Returns their names."""
    asked = os.environ.get("PAGES_SCREENSHOTS") if asked is None else asked
    if not asked or folder(asked) != str(ASIDE) or Path(asked).resolve() == ASIDE:
        return []
    done = []
    for name in sorted(linked()):
        made = ASIDE / name
        if made.exists():
            shutil.copyfile(made, DOCS / name)
            done.append(name)
    return done
