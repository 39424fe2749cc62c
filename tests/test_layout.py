"""The house's layers, checked from the source: who may import whom, and no module reaches into another's privates."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "companion"
STDLIB = set(sys.stdlib_module_names) | {"__future__"}

# room -> the rooms (and third-party libraries) it may import; companion's own top-level modules are named
ALLOWED = {
    "game": {"game"},
    "store": {"store", "game"},
    "live": {"live", "limits", "wsproto", "h11"},
    "pi": {"pi", "game", "gpiozero"},
    "lang": {"lang", "game", "babel"},
    "web": {"web", "table", "views", "lang", "game", "limits", "names", "store", "live", "pi", "flask", "werkzeug",
            "qrcode"},
}


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        room = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        yield path, room, ast.parse(path.read_text("utf-8"), str(path))


def imported(tree) -> list[tuple[str, list[str]]]:
    """(module, names) for every import, anywhere in the file (lazy imports count too)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.ImportFrom):
            out.append(("." * node.level + (node.module or ""), [a.name for a in node.names]))
    return out


def room_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "companion":
        return parts[0]
    return parts[1] if len(parts) > 1 else "companion"


@pytest.mark.parametrize("room", sorted(ALLOWED))
def test_each_room_imports_only_what_the_layout_allows(room):
    """game: stdlib only; store, live, pi, lang: leaves that know no Flask route and not each other."""
    wrong = []
    for path, r, tree in modules():
        if r != room:
            continue
        for module, names in imported(tree):
            if module.startswith("."):
                continue   # within its own package
            top = room_of(module)
            if top in STDLIB or top in ALLOWED[room]:
                continue
            if module == "companion" and all(n in ALLOWED[room] for n in names):
                continue
            wrong.append(f"{path.relative_to(ROOT)} imports {module} {names}")
    assert wrong == []


def test_no_module_imports_another_modules_private_names():
    """`from x import _y` and `x._y` across modules are the reach into internals the layout forbids."""
    wrong = []
    for path, _, tree in modules():
        aliases = set()
        for module, names in imported(tree):
            if module.startswith("companion") or module.startswith("."):
                wrong += [f"{path.relative_to(ROOT)}: from {module} import {n}" for n in names
                          if n.startswith("_") and not n.startswith("__")]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("companion"):
                aliases |= {a.asname or a.name for a in node.names}
            if isinstance(node, ast.Import):
                aliases |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.startswith("companion")}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value.id}.{node.attr}")
    assert wrong == []


def test_the_map_generator_ships_outside_the_package():
    """The package keeps the loader (web/boardmap.py); the geometry that draws it lives in tools/."""
    loader = ast.parse((PACKAGE / "web" / "boardmap.py").read_text("utf-8"))
    functions = {n.name for n in ast.walk(loader) if isinstance(n, ast.FunctionDef)}
    assert functions == {"drawn_file", "shipped"}
    assert (ROOT / "tools" / "boardmap.py").is_file()
