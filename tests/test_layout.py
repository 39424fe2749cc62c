"""The house's layers, checked from the source: who may import whom, and no module reaches into another's privates."""
from __future__ import annotations

import ast
import re
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
    "web": {"web", "table", "views", "lang", "game", "limits", "names", "store", "live", "pi", "errors", "flask",
            "werkzeug", "qrcode"},
    "table": {"table", "model", "game", "store", "live", "views", "codes", "asks", "errors", "limits", "names",
              "pi_seat", "think", "players"},
    # A game as its log makes it: beneath the views, the table and the Pi's seat, and knowing none of them.
    "model": {"model", "game", "store", "lang"},
    "views": {"model", "game", "lang", "orjson"},   # orjson: the view texts, a fifth of a bid (docs/BENCHMARKS.md)
    "pi_seat": {"model", "game", "store", "lang", "players", "think"},
    # The players: pure like the rules (state in, action out), so any process may run them (think.py's child).
    "players": {"players", "game"},
    "errors": set(),
}
MOST_LINES = {"class": 400, "function": 60}   # a room of a livable size: read at once, changed without fear


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


def typing_only(tree) -> ast.Module:
    """The module without its `if TYPE_CHECKING:` blocks: a name imported for annotations alone (the model's
    handlers naming the `Game` they are handed) is never imported when the program runs."""
    tree = ast.parse(ast.unparse(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            node.body = [ast.Pass()]
    return tree


def companion_imports(tree, path: Path) -> set[str]:
    """The companion modules a file imports when it runs (a package's submodule named in `from package import x`
    included; annotations' own imports are not)."""
    out = set()
    for module, names in imported(typing_only(tree)):
        if module.startswith("."):
            continue
        if module == "companion" or module.startswith("companion."):
            out.add(module)
            out |= {f"{module}.{n}" for n in names if (PACKAGE.parent / module.replace(".", "/") / f"{n}.py").exists()}
    return out


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def test_no_circle_of_imports():
    """A module never imports, through others, the module that imports it: each layer stands on the one below."""
    graph = {module_name(path): companion_imports(tree, path) - {module_name(path)} for path, _, tree in modules()}
    # A package's face hands its submodules on: importing it is importing what its __init__ imports.
    circles = []
    for start in graph:
        stack, seen = [(start, [start])], set()
        while stack:
            here, route = stack.pop()
            for there in graph.get(here, ()):
                if there == start and len(route) > 1:
                    circles.append(" -> ".join(route + [there]))
                elif there not in seen and there in graph and not there.startswith(start + ".") \
                        and not start.startswith(there + "."):
                    seen.add(there)
                    stack.append((there, route + [there]))
    assert circles == []


def test_blueprints_import_no_other_blueprint():
    """What two blueprints share (page context, a view's response) lives in web/render.py, not in a blueprint."""
    blueprints = {module_name(path) for path, room, tree in modules() if room == "web" and any(
        isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Blueprint" for n in ast.walk(tree))}
    assert {"companion.web.api", "companion.web.pages", "companion.web.history", "companion.web.board"} <= blueprints
    wrong = [f"{module_name(path)} imports {m}" for path, room, tree in modules() if module_name(path) in blueprints
             for m in companion_imports(tree, path) if m in blueprints]
    assert wrong == []


def test_every_write_to_the_log_goes_through_the_table():
    """Only companion/table/ (and the store itself) appends, writes, saves a layout or merges names."""
    writes = {"append", "write", "save_layout", "merge_names", "record_play", "forget_play"}
    wrong = []
    for path, room, tree in modules():
        if room in ("table", "store"):
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in writes):
                continue
            owner = ast.unparse(node.func.value)
            if owner == "history" or owner.endswith("store"):
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)[:60]}")
    assert wrong == []


def test_a_game_changes_its_views_one_way_only():
    """No change a phone would see without being told: `rev` (what the views are cached on) is written by the game
    itself alone (`Game.mutate` for a logged event, `Game.touch`), and `touch` is called only by `mutate` and by the
    table's one way to change a game outside its log (`OnePath.changed` in table/commit.py: it also tells the phones)."""
    wrong = []
    for path, room, tree in modules():
        rel = str(path.relative_to(PACKAGE))
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and t.attr == "rev" and rel != "model/game.py":
                    wrong.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "touch":
                where = next((f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
                              and f.lineno <= node.lineno <= f.end_lineno and f.name in ("mutate", "changed")), None)
                if where is None or rel not in ("model/game.py", "table/commit.py"):
                    wrong.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    assert wrong == [], wrong


def test_rooms_of_a_livable_size():
    """No class over 400 lines and no function over 60 in companion/: the Table is split by concern."""
    wrong = []
    for path, _, tree in modules():
        for node in ast.walk(tree):
            kind = ("class" if isinstance(node, ast.ClassDef) else
                    "function" if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None)
            if kind and node.end_lineno - node.lineno + 1 > MOST_LINES[kind]:
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: {kind} {node.name}, "
                             f"{node.end_lineno - node.lineno + 1} lines")
    assert wrong == []



REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^")


def script_functions(text: str) -> list[tuple[str, int, int]]:
    """(name, first line, last line, depth) of every function of a page script: from its `function` keyword to its
    body's closing brace, depth 0 for the module's own wrapper. Strings, comments and regular expressions are stepped
    over whole (a brace in them is no brace)."""
    out, stack, pending, prev, line, i, n = [], [], None, "(", 1, 0, len(text)
    while i < n:
        c, j = text[i], i + 1
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.index("*/", i + 2) + 2
        elif c in "'\"`" or (c == "/" and prev in REGEX_AFTER):
            j, in_class = i + 1, False
            while text[j] != c or in_class:
                if c == "/" and text[j] in "[]":
                    in_class = text[j] == "["
                j += 2 if text[j] == "\\" else 1
            j, prev = j + 1, "x"
        elif c == "f" and not (text[i - 1:i].isalnum() or text[i - 1:i] in "_$") and (
                m := re.match(r"function\b\s*([\w$]*)\s*\(", text[i:i + 80])):
            pending, j, prev = (m.group(1) or "(anonymous)", line, len(stack)), i + m.end(), "("
        else:
            if c == "{":
                stack.append(pending)
                pending = None
            elif c == "}":
                opened = stack.pop()
                if opened:
                    out.append((opened[0], opened[1], line, opened[2]))
            if not c.isspace():
                prev = c
        line += text.count("\n", i, j)
        i = j
    assert not stack and not pending, "the braces do not balance"
    return out
def test_page_scripts_are_modules_of_short_functions():
    """Each page script is one module (a wrapper function run at once, exposing what other scripts use), and no
    function inside one is over 60 lines, as in companion/ (issue 38: `live`, 106 lines, and the end screens' 75-81)."""
    wrong, modules_ = [], {}
    for path in sorted((ROOT / "static").glob("*.js")):
        for name, first, last, depth in script_functions(path.read_text(encoding="utf-8")):
            if depth == 0:
                modules_[path.name] = modules_.get(path.name, 0) + 1
            elif last - first + 1 > MOST_LINES["function"]:
                wrong.append(f"static/{path.name}:{first}: function {name}, {last - first + 1} lines")
    assert wrong == []
    assert {name: count for name, count in modules_.items() if count != 1} == {}, "one wrapper per script"
    assert len(modules_) == len(list((ROOT / "static").glob("*.js")))


# The one script that is no module: written into the phone's head, it keeps its socket on its own element.
INLINE_SCRIPTS = {"socket.js"}


def test_page_scripts_share_no_globals_and_import_what_they_use():
    """Issue 38 item 6: each page script is an ES module; one reaches another only by importing what it exports (by a
    relative name, served under one build: companion/web/static_cache.py), never through window."""
    scripts = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "static").glob("*.js"))}
    exported = {}
    for name, text in scripts.items():
        for names in re.findall(r"^export \{ ([\w$, ]+) \};$", text, re.M):
            for one in names.split(", "):
                exported[one] = name
    assert {"M", "BoardMap", "phone", "Review", "evening"} <= set(exported), exported
    wrong = []
    for name, text in scripts.items():
        if re.search(r"\bwindow\.[\w$]+\s*=(?!=)", text) or "window.__" in text or "window.M" in text:
            wrong.append(f"{name}: writes or reads a global on window")
        if name in INLINE_SCRIPTS:
            continue
        imported = dict(re.findall(r'^import \{ ([\w$]+) \} from "\./([\w-]+\.js)";$', text, re.M))
        for one, source in imported.items():
            if exported.get(one) != source:
                wrong.append(f"{name}: imports {one} from {source}, which does not export it")
        later = set(re.findall(r'\bimport\("\./([\w-]+\.js)"\)', text))   # fetched when first wanted
        for one, source in exported.items():   # its parts' names (M, G, BoardMap...); "phone" is also a word
            if source != name and one[0].isupper() and one not in imported and source not in later and re.search(r"(?<![\w$.])" + re.escape(one) + r"\b[.(]", text):
                wrong.append(f"{name}: uses {one} ({source}) without importing it")
    assert wrong == []
    # Loaded as modules by every page (a script loaded as a classic one could not import), under their build.
    for template in sorted((ROOT / "templates").glob("*.html")):
        for tag in re.findall(r"<script\b[^>]*\bsrc=[^>]*>", template.read_text(encoding="utf-8")):
            assert 'type="module"' in tag and "url_for('script'" in tag, (template.name, tag)


def test_the_script_reader_sees_every_function_and_steps_over_strings():
    # It must be able to fail: a brace in a string, a comment or a regex is no brace; a long function is counted.
    text = ("(function () {\n  var a = '{', b = /[}/]{2}/g; // }\n  /* { */\n  function f(x) {\n" +
            "    return x;\n" * 70 + "  }\n  return { f: f };\n})();\n")
    found = script_functions(text)
    assert [(name, first, depth) for name, first, _, depth in found] == [("f", 4, 1), ("(anonymous)", 1, 0)]
    assert found[0][2] - found[0][1] + 1 == 72


def test_the_pis_thinker_holds_no_table_only_its_seams():
    """pi_seat.PiThinker sits below the table (the table imports it): it is handed `PiSeams`, the few callables it
    needs, and never the table, so nothing in it can read another part's state or change a game but through the
    `deliver` seam (which acts through the one path). Its constructor takes the seams; no `table` name inside."""
    tree = ast.parse((PACKAGE / "pi_seat.py").read_text("utf-8"))
    thinker = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "PiThinker")
    names = [f"{n.lineno}: {ast.unparse(n)}" for n in ast.walk(thinker)
             if isinstance(n, ast.Attribute) and n.attr == "table" or isinstance(n, ast.Name) and n.id == "table"
             or isinstance(n, ast.arg) and n.arg == "table"]
    assert names == [], names
    init = next(n for n in thinker.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    assert [a.arg for a in init.args.args][1] == "seams"


def test_blueprints_ask_the_table_and_never_its_parts():
    """web/ holds routes only: it calls the table's own methods, never a part of the table (its hub, caps, Pi,
    timers, store, LEDs) nor writes any of the table's attributes (issue 38: seams, not reaches)."""
    # (The history pages' read-only queries take the table's store: web may read store/history.py, never write.)
    parts = {"hub", "caps", "pi", "timers", "leds", "reviews", "kiosks", "displays", "games", "opened", "current"}
    wrong = []
    for path, room, tree in modules():
        if room != "web":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in parts and isinstance(node.value, ast.Name) \
                    and node.value.id in ("t", "table"):
                wrong.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id in ("t", "table"):
                    wrong.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert wrong == [], wrong


def companion_classes() -> dict[str, list[tuple[Path, ast.ClassDef]]]:
    """Every class defined in companion/, by name (a name may be defined in more than one module)."""
    found: dict[str, list[tuple[Path, ast.ClassDef]]] = {}
    for path, _, tree in modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append((path, node))
    return found


def test_no_class_mixes_in_more_than_one_of_companions_own():
    """Issue 38, item 8: no mixins. A class with two bases from companion/ shares one `self` across files (as
    `Table(Memory, Lobby, Seats, ...)` and `Game(BoardEvents, PiEvents, ...)` did): what its parts read and call
    of each other no import shows. A part gets what it needs in its constructor instead."""
    classes = companion_classes()
    wrong = []
    for name, defs in classes.items():
        for path, node in defs:
            own = [ast.unparse(b) for b in node.bases
                   if isinstance(b, (ast.Name, ast.Attribute)) and ast.unparse(b).split(".")[-1] in classes]
            if len(own) > 1:
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}({', '.join(own)})")
    assert wrong == [], wrong


def test_the_table_is_a_facade_with_no_bases_over_parts_never_handed_the_table():
    """`Table` (table/facade.py) has no base, and builds its parts with the services and parts they use: no part
    is handed the table itself (`self`), so none can reach back into it or into another part through it."""
    tree = ast.parse((PACKAGE / "table" / "facade.py").read_text("utf-8"))
    table = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Table")
    assert table.bases == [] and table.keywords == []
    init = next(n for n in table.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    handed = [f"{n.lineno}: {ast.unparse(n)[:80]}" for n in ast.walk(init) if isinstance(n, ast.Call)
              and any(isinstance(a, ast.Name) and a.id == "self" for a in [*n.args, *(k.value for k in n.keywords)])]
    assert handed == [], handed


# Names with a leading underscore that their library documents for use: os._exit (a forked child leaving without
# the parent's clean-up), werkzeug's LocalProxy._get_current_object (the object behind flask's current_app).
DOCUMENTED_PRIVATES = {"os._exit", "current_app._get_current_object"}


def test_no_object_reads_another_modules_private_names():
    """Across companion/, `x._name` only for x = self or cls, or for a `_name` its own module defines (a class of a
    module may reach its sibling's state): a part reaches another's state through its public methods and
    attributes, never its privates (a `_name` is its own module's to change)."""
    wrong = []
    for path, room, tree in modules():
        own = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | {
            t.attr for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign))
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Attribute)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") \
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")) \
                    and node.attr not in own and ast.unparse(node) not in DOCUMENTED_PRIVATES:
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert wrong == [], wrong


def test_event_kinds_are_named_in_their_module_only():
    """Issue 38: every logged kind is a class in companion/store/events.py; the table and the store name the class
    (or a list the module builds), never the kind's string: no `commit(game, "seat", ...)`, no `kind == "undo"` or
    `kind in ("seat", ...)`, no registry keyed by kind strings, no SQL naming a kind in quotes (`kind IN ('seat'`).
    (Other uses of the same words, a board step's "action" index or a token's "kind", stay ordinary strings.)"""
    import re
    from companion.store.events import KINDS
    sql = re.compile(r"kind\s*(=|IN\b)\s*\(?\s*'\w", re.IGNORECASE)

    def kinds_in(node) -> bool:
        items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return any(isinstance(x, ast.Constant) and x.value in KINDS for x in items)

    def about_kind(node) -> bool:
        text = ast.unparse(node)
        return text == "kind" or text.endswith(".kind") or text.endswith("['kind']") or "get('kind'" in text

    wrong = []
    for path, room, tree in modules():
        if room not in ("table", "store") or path.name == "events.py":
            continue
        for node in ast.walk(tree):
            bad = False
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "commit", "mutate", "follow"):
                bad = any(kinds_in(a) for a in node.args)
            elif isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                bad = any(about_kind(s) for s in sides) and any(kinds_in(s) for s in sides)
            elif isinstance(node, ast.Dict):
                bad = sum(kinds_in(k) for k in node.keys if k is not None) >= 3
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                bad = bool(sql.search(node.value))
            if bad:
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)[:70]}")
    assert wrong == []
