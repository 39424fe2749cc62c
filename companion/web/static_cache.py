"""Our scripts and styles under a name that changes with their content, kept a year: a phone that reloads, comes
back, or follows a rematch to its new page asks for none of them again (on a slow table Wi-Fi, a round trip each).

Styles carry their own hash (`/static/app.css?v=…`). The page scripts are modules that import each other by relative
names (`import { M } from "./app.js"`), and a relative import drops a query, so they live under one folder named by
the hash of all of them together (`/static/js/<build>/app.js`): a script and everything it imports share that build,
and a module asked for by two names would run twice.

Why not Flask-Assets (webassets): it bundles and writes files in a build step the Pi would have to run; Flask's own
static files answer a revalidation with 304, still a round trip per file; a hash of each file at first use is enough."""
from __future__ import annotations

import hashlib
import os
import threading
from typing import Optional

from flask import Flask, Response, abort, g, request, send_from_directory

KEEP = "public, max-age=31536000, immutable"

# filename -> ((mtime_ns, size), short hash). Only the names our own templates ask url_for for enter it (a handful),
# never a name from a request; a file edited while the server runs gets a new hash at the next page.
_versions: dict = {}
_lock = threading.Lock()


def version(folder: str, filename: str) -> Optional[str]:
    """The first 12 hex digits of the file's SHA-256; None when there is no such file."""
    try:
        st = os.stat(os.path.join(folder, filename))
    except (OSError, ValueError):
        return None
    key = (st.st_mtime_ns, st.st_size)
    with _lock:
        known = _versions.get(filename)
    if known and known[0] == key:
        return known[1]
    with open(os.path.join(folder, filename), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    with _lock:
        _versions[filename] = (key, digest)
    return digest


def build(folder: str) -> str:
    """The hash of every page script together: the folder name all of them are served under."""
    names = sorted(n for n in os.listdir(folder) if n.endswith(".js"))
    return hashlib.sha256(" ".join(f"{n}:{version(folder, n)}" for n in names).encode()).hexdigest()[:12]


def keep(response: Response) -> None:
    """Kept a year, never asked again under this name: so no date to revalidate it by (46 bytes less a file on a
    noisy Wi-Fi; a phone's first load asks for a dozen)."""
    response.headers["Cache-Control"] = KEEP
    for name in ("Expires", "Last-Modified"):
        response.headers.pop(name, None)


def init_app(app: Flask) -> None:
    folder = app.static_folder

    @app.route("/static/js/<b>/<name>", endpoint="script")
    def script(b: str, name: str) -> Response:
        """A page script: kept a year under today's build; under any other, revalidated at each use."""
        if not name.endswith(".js"):
            abort(404)
        response = send_from_directory(folder, name)
        if b == build(folder):
            keep(response)
        return response

    @app.url_defaults
    def versioned(endpoint: str, values: dict) -> None:
        if endpoint == "script" and "b" not in values:
            if "script_build" not in g:   # once a page: a page names several scripts
                g.script_build = build(folder)
            values["b"] = g.script_build
        if endpoint == "static" and "filename" in values and "v" not in values:
            v = version(folder, values["filename"])
            if v:
                values["v"] = v

    @app.after_request
    def kept(response: Response) -> Response:
        if request.endpoint in ("static", "script"):
            # "inline" and the URL's own name: what a browser assumes without it (40 bytes a file, a dozen a page).
            response.headers.pop("Content-Disposition", None)
        # Only the very content a page named: an old or made-up ?v= gets the file with the usual revalidation.
        v = request.args.get("v")
        name = (request.view_args or {}).get("filename")
        if request.endpoint == "static" and response.status_code in (200, 304) and v and name in _versions \
                and version(folder, name) == v:
            keep(response)
        return response
