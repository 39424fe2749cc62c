"""gzip for pages, scripts, styles and QR codes: phones on a noisy table Wi-Fi load a third of the bytes.

Why not Flask-Compress: it brings brotli and backports-zstd, compiled, to the Pi, for pages gzip already brings from
80 KB to 29 KB; here the standard library's gzip (app.js 19.7 KB -> 6.2 KB in 1.6 ms at level 6 on the build machine),
each static file compressed once per version."""
from __future__ import annotations

import gzip
import threading
from collections import OrderedDict

from flask import Flask, Request, Response

from companion.web.slim import SLIMMED, slim

KINDS = ("text/html", "text/css", "text/javascript", "application/javascript", "image/svg+xml")
SMALLEST = 1024       # below this the gzip header costs more than it saves
LEVEL = 6             # a Pi Zero 2 W compresses a page in a few milliseconds at this level

# Static files, compressed once each. Keyed by the file itself (its ETag: the resolved path's checksum,
# size and mtime), never by the request path: `/static/7/..%2Fapp.js` is app.js, not a new entry.
# Bounded too: the shipped files are a handful, and an edited file must not leave its old copies forever.
_cache: "OrderedDict[tuple, tuple]" = OrderedDict()
CACHE_ENTRIES = 64    # each shipped file at most twice: gzipped, and plain for a client that does not ask
_lock = threading.Lock()


def _remember(key: tuple, body: bytes) -> None:
    with _lock:
        _cache[key] = body
        _cache.move_to_end(key)
        while len(_cache) > CACHE_ENTRIES:
            _cache.popitem(last=False)


def wants_gzip(request: Request) -> bool:
    return "gzip" in request.headers.get("Accept-Encoding", "").lower()


def compress(request: Request, response: Response) -> Response:
    """Gzip a 200 answer of a text kind for a browser that asks for it; our scripts and styles are slimmed first
    (web/slim.py), whether gzipped or not, once per version of the file; anything else passes through."""
    if response.status_code != 200 or response.mimetype not in KINDS or "Content-Encoding" in response.headers:
        return response
    gz = wants_gzip(request)
    etag, _ = response.get_etag()
    if response.direct_passthrough and etag:
        key = (etag, response.content_length, response.last_modified, gz)
        with _lock:
            kept = _cache.get(key)
        if kept is None:
            response.direct_passthrough = False
            data = response.get_data()
            if response.mimetype in SLIMMED:
                data = slim(data.decode("utf-8"), css=response.mimetype == "text/css").encode("utf-8")
            kept = (gzip.compress(data, LEVEL, mtime=0), True) if gz and len(data) >= SMALLEST else (data, False)
            _remember(key, kept)
        body, zipped = kept
    elif not gz:
        return response
    else:
        response.direct_passthrough = False
        data = response.get_data()
        if len(data) < SMALLEST:
            return response
        body, zipped = gzip.compress(data, LEVEL, mtime=0), True
    response.direct_passthrough = False
    response.set_data(body)
    response.headers.pop("Accept-Ranges", None)  # byte ranges would count the file's bytes, not these
    if zipped:
        response.headers["Content-Encoding"] = "gzip"
        response.headers.add("Vary", "Accept-Encoding")
        # The ETag names the plain bytes; Last-Modified still lets the phone revalidate a static file.
        response.headers.pop("ETag", None)
    return response


def gzipped(request: Request, response: Response) -> Response:
    """An API answer sent once and large (a replay, BG Stats' links), gzipped for a browser that asks. Views are
    not: they are small and many, and a bid's answer is on the hot path."""
    if wants_gzip(request):
        response.set_data(gzip.compress(response.get_data(), LEVEL, mtime=0))
        response.headers["Content-Encoding"] = "gzip"
        response.headers.add("Vary", "Accept-Encoding")
    return response


def init_app(app: Flask) -> None:
    from flask import request

    app.after_request(lambda response: compress(request, response))
