"""Our scripts and styles under a name that changes with their content, kept a year: a phone that reloads, comes
back, or follows a rematch to its new page asks for none of them again (on a slow table Wi-Fi, a round trip each).

Why not Flask-Assets (webassets): it bundles and writes files in a build step the Pi would have to run; Flask's own
static files answer a revalidation with 304, still a round trip per file; a hash of each file at first use is enough."""
from __future__ import annotations

import hashlib
import os
import threading
from typing import Optional

from flask import Flask, Response, request

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


def init_app(app: Flask) -> None:
    folder = app.static_folder

    @app.url_defaults
    def versioned(endpoint: str, values: dict) -> None:
        if endpoint == "static" and "filename" in values and "v" not in values:
            v = version(folder, values["filename"])
            if v:
                values["v"] = v

    @app.after_request
    def kept(response: Response) -> Response:
        # Only the very content a page named: an old or made-up ?v= gets the file with the usual revalidation.
        v = request.args.get("v")
        name = (request.view_args or {}).get("filename")
        if request.endpoint == "static" and response.status_code in (200, 304) and v and name in _versions \
                and version(folder, name) == v:
            response.headers["Cache-Control"] = KEEP
            response.headers.pop("Expires", None)
        return response
