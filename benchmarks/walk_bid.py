"""How far a newcomer must follow a bid: from the act route (web/api.py `act`) to the store. Prints figures; not a
test.

    .venv/bin/python benchmarks/walk_bid.py                      # at run time: what one bid enters
    python3 -m venv /tmp/jedi && /tmp/jedi/bin/pip install jedi
    /tmp/jedi/bin/python benchmarks/walk_bid.py --static         # by go-to-definition alone (jedi)

At run time: one bid played through the app (a real SQLite file, Flask's test client, two seated phones), every
Python function call inside it recorded with sys.setprofile; printed: the companion modules and packages it
entered, and the functions.

Statically: from `act`, every call in every companion function reached is asked of jedi's go-to-definition (what
an editor does); a call it resolves to a companion function or class is followed, one it resolves to a library is
not; one it cannot resolve to anything is counted as lost (a reader stops there). A walk over-reaches (every
branch, not one bid's) and is the reader's view, not the run's: both are printed.
"""
from __future__ import annotations

import argparse
import ast
import collections
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "companion"


def module_of(path: str) -> str | None:
    p = Path(path).resolve()
    if PACKAGE not in p.parents:
        return None
    return ".".join(p.relative_to(ROOT).with_suffix("").parts)


def runtime() -> None:
    sys.path.insert(0, str(ROOT))
    from companion import create_app

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"DB": str(Path(tmp) / "t.sqlite3"), "LEDS": None, "JOIN_URL": "http://192.0.2.1:8000",
                          "RATE_LIMIT": 1000})
        origin = {"Origin": "http://localhost"}
        host, other = app.test_client(), app.test_client()
        host.environ_base["REMOTE_ADDR"], other.environ_base["REMOTE_ADDR"] = "192.0.2.10", "192.0.2.11"  # phones
        r = host.post("/api/games", json={"mode": "family", "players": ["blue", "red"], "deal": "app",
                                          "removed_districts": ["north", "east"]}, headers=origin)
        assert r.status_code == 201, r.get_data(as_text=True)
        gid = r.get_json()["id"]
        for client, color in ((host, "blue"), (other, "red")):
            r = client.post(f"/api/games/{gid}/seats/{color}", json={"name": color.title()}, headers=origin)
            assert r.status_code == 200, r.get_data(as_text=True)
        assert host.post(f"/api/games/{gid}/start", json={}, headers=origin).status_code == 200
        seen: collections.Counter = collections.Counter()

        def profile(frame, event, arg):
            if event == "call":
                mod = module_of(frame.f_code.co_filename)
                if mod:
                    seen[(mod, frame.f_code.co_qualname)] += 1

        for measured in (False, True):   # the first bid also imports and compiles: the second is the one measured
            views = [c.get(f"/api/games/{gid}").get_json() for c in (host, other)]
            mover, view = next((c, v) for c, v in zip((host, other), views) if v["legal"])
            nb = sorted(view["legal"]["neighborhoods"])[0]
            body = {"bid": nb, "value": view["legal"]["neighborhoods"][nb][0], "expect_seq": view["seq"]}
            seen.clear()
            sys.setprofile(profile if measured else None)
            r = mover.post(f"/api/games/{gid}/actions", json=body, headers=origin)
            sys.setprofile(None)
            assert r.status_code == 200, r.get_data(as_text=True)
        modules = sorted({m for m, _ in seen})
        packages = sorted({".".join(m.split(".")[:2]) if m.count(".") > 1 else m for m in modules})
        print(f"one bid at run time: {len(modules)} companion modules in {len(packages)} packages or top modules, "
              f"{len(seen)} functions, {sum(seen.values())} calls")
        for m in modules:
            print(f"  {m}: {sum(n for (mm, _), n in seen.items() if mm == m)} calls")


def static(start: tuple[str, str]) -> None:
    import jedi

    venv = ROOT / ".venv"   # the libraries as the app has them (Flask's own calls are then recognized as Flask's)
    env = jedi.create_environment(str(venv), safe=False) if venv.exists() else None
    project = jedi.Project(str(ROOT), added_sys_path=[str(ROOT)])
    scripts: dict[str, "jedi.Script"] = {}
    trees: dict[str, ast.Module] = {}

    def script(path: str):
        if path not in scripts:
            text = Path(path).read_text("utf-8")
            scripts[path] = jedi.Script(text, path=path, project=project, environment=env)
            trees[path] = ast.parse(text)
        return scripts[path], trees[path]

    def function_at(path: str, line: int):
        _, tree = script(path)
        return next((node for node in ast.walk(tree)
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == line), None)

    def init_of(path: str, line: int):
        _, tree = script(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.lineno == line:
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name in ("__init__", "__post_init__"):
                        return item
        return None

    path0 = str(PACKAGE / start[0])
    _, tree0 = script(path0)
    first = next(n for n in ast.walk(tree0) if isinstance(n, ast.FunctionDef) and n.name == start[1])
    queue, done = [(path0, first)], set()
    lost: list[str] = []
    modules: set[str] = set()
    while queue:
        path, fn = queue.pop()
        key = (path, fn.lineno)
        if key in done:
            continue
        done.add(key)
        modules.add(module_of(path))
        scr, _ = script(path)
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            f = call.func
            if isinstance(f, ast.Attribute):
                line, col = f.end_lineno, f.end_col_offset - len(f.attr)
            elif isinstance(f, ast.Name):
                line, col = f.lineno, f.col_offset
            else:
                continue   # a call of a call's result, a subscript: not a name a reader can click
            try:
                found = scr.goto(line, col, follow_imports=True)
            except Exception:  # noqa: BLE001 (jedi's own failure: the reader is lost there too)
                found = []
            where = f"{module_of(path)}:{line} {ast.unparse(f)}"
            if not found:
                if isinstance(f, ast.Name) and f.id in dir(__builtins__):
                    continue
                lost.append(where)
                continue
            for d in found:
                if d.module_path is None or module_of(str(d.module_path)) is None:
                    continue   # a library's or the standard library's: not followed
                target = str(d.module_path)
                if d.type == "function":
                    node = function_at(target, d.line)
                elif d.type == "class":
                    node = init_of(target, d.line)
                else:
                    node = None
                    if d.type in ("param", "statement", "instance"):
                        lost.append(where + f"  (goes to a {d.type}: {d.description})")
                if node is not None:
                    queue.append((target, node))
    packages = sorted({".".join(m.split(".")[:2]) if m.count(".") > 1 else m for m in modules})
    print(f"from web/api.py act by go-to-definition: {len(done)} companion functions in {len(modules)} modules "
          f"({len(packages)} packages or top modules); {len(lost)} calls it cannot follow")
    for m in sorted(modules):
        print(f"  {m}")
    print("calls go-to-definition loses:")
    for w in lost:
        print(f"  {w}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--static", action="store_true", help="walk by jedi's go-to-definition instead of running")
    args = ap.parse_args()
    if args.static:
        static(("web/api.py", "act"))
    else:
        runtime()


if __name__ == "__main__":
    main()
