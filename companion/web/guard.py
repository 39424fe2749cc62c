"""Before any route: the Host header must name this server (DNS rebinding), every answer carries the page policy,
and sockets and writes come only from this server's own pages.

Why not Flask's TRUSTED_HOSTS or Flask-Talisman: the names here are the Pi's at this moment (an address its Wi-Fi was
given an hour ago, the very address the connection arrived at), not a list fixed at start, and a refusal is a sentence
in the device's language; the policy is one string with the hashes of the scripts a page writes inline."""
from __future__ import annotations

import base64
import functools
import hashlib
import ipaddress
import json
import os
import socket
from typing import Callable, Iterable, Optional
from urllib.parse import urlparse, urlsplit

from flask import Flask, Response, request
from werkzeug.wrappers import Request

from companion.lang import i18n
from companion.web.errors import refuse
from companion.web.slim import slim

# No script but our own files, nothing embedded, never framed; style too comes only from our files.
CSP = "default-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'"
HEADERS = (("Content-Security-Policy", CSP), ("X-Content-Type-Options", "nosniff"),
           ("Referrer-Policy", "same-origin"))
# The "How to play" card is the one page our own pages may frame (it opens over the phone page, which stays live).
FRAMED = ("/learn",)
_NAMES = {h.lower() for h, _ in HEADERS}
# Our own files a page writes inline, each admitted by the hash of its exact text alone: the phone's socket opener
# runs as the head is parsed, a round trip sooner than as a file of its own (issue 20 item 6).
INLINE = ("socket.js",)


def script_hash(text: str) -> str:
    """The CSP source that admits exactly this inline script."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def policy_headers(inline: Iterable[str], framed: bool = False) -> tuple:
    """The page policy, with script-src widened by exactly the hashes of these inline scripts."""
    csp = CSP.replace("script-src 'self'", " ".join(["script-src 'self'", *map(script_hash, inline)]))
    if framed:
        csp = csp.replace("frame-ancestors 'none'", "frame-ancestors 'self'")
    return (("Content-Security-Policy", csp), *HEADERS[1:])


def host_name(host: str) -> Optional[str]:
    """The name in a Host header, lower case, without port or trailing dot; None when it is not a host at all."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        rest = host[end + 1:]
        if end < 0 or (rest and not (rest[:1] == ":" and rest[1:].isdigit())):
            return None
        return host[1:end]
    name, _, port = host.partition(":")
    if port and not port.isdigit():
        return None
    return name.rstrip(".") or None


def own_names(join_url: Optional[str]) -> frozenset[str]:
    """The names this server answers to: localhost, its host name and `.local` name, the join URL's host."""
    return _names(socket.gethostname().lower().rstrip("."), join_url)


@functools.lru_cache(maxsize=8)
def _names(me: str, join_url: Optional[str]) -> frozenset[str]:
    """Made once per host name and join URL, not at every request (it parses the URL)."""
    names = {"localhost"}
    if me:
        names |= {me, me.split(".")[0] + ".local"}
    if join_url:
        try:
            joined = urlsplit(join_url).hostname
        except ValueError:
            joined = None
        if joined:
            names.add(joined.lower().rstrip("."))
    return frozenset(names)


def host_allowed(host: Optional[str], names: Iterable[str], local_addr: Optional[str]) -> bool:
    """True when the Host header names this server.

    A rebinding page reaches the Pi under its own domain name, so names must be ours. An address is
    ours when it is a loopback one or the very address this connection arrived at."""
    if host is None:
        return True   # HTTP/1.0 without Host: no browser, so no page that could have been rebound
    name = host_name(host)
    if name is None:
        return False
    if name in names:   # also the join URL's address when it is one (a port forwarded to the Pi)
        return True
    try:
        ip = ipaddress.ip_address(name)
    except ValueError:
        return False
    if ip.is_loopback:
        return True
    if local_addr:
        try:
            return ipaddress.ip_address(local_addr.split("%")[0]) == ip
        except ValueError:
            return False
    return False


def _local_addr(environ: dict) -> Optional[str]:
    """The address the request came in on (companion/live/httploop.py and werkzeug both hand the socket over)."""
    sock = environ.get("companion.socket") or environ.get("werkzeug.socket")
    try:
        addr = sock.getsockname() if sock is not None else None
    except OSError:
        addr = None
    if isinstance(addr, tuple) and addr:
        return str(addr[0])
    return environ.get("SERVER_ADDR")


class Guard:
    """WSGI middleware around the Flask app: refuses a foreign Host before routing; adds the page policy headers."""

    def __init__(self, app: Callable, join_url: Callable[[], Optional[str]], inline: Iterable[str] = ()):
        self.app = app
        self.join_url = join_url
        self.headers = policy_headers(inline)
        self.framed_headers = policy_headers(inline, framed=True)

    def __call__(self, environ, start_response):
        host = environ.get("HTTP_HOST")
        names = own_names(self.join_url())
        # The connection's own address is asked for only when the name alone does not settle it.
        if not (host_allowed(host, names, None) or host_allowed(host, names, _local_addr(environ))):
            return self.refuse(environ, start_response)

        policy = self.framed_headers if environ.get("PATH_INFO") in FRAMED else self.headers

        def with_headers(status, headers, exc_info=None):
            headers = [(k, v) for k, v in headers if k.lower() not in _NAMES] + list(policy)
            return start_response(status, headers, exc_info)

        return self.app(environ, with_headers)

    def refuse(self, environ, start_response):
        lang = i18n.pick_lang(Request(environ))
        sentence = i18n.t(lang, "bad_host")
        if environ.get("PATH_INFO", "").startswith("/api/"):
            body = json.dumps({"error": sentence, "code": "bad_host"}).encode()
            kind = "application/json"
        else:
            body, kind = sentence.encode(), "text/plain; charset=utf-8"
        start_response("421 Misdirected Request", [("Content-Type", kind), ("Content-Length", str(len(body))),
                                                  ("Connection", "close"), *self.headers])
        return [] if environ.get("REQUEST_METHOD") == "HEAD" else [body]


# -- inside Flask: sockets and writes only from this server's own pages --

def _host_port(netloc: str, default_port: str) -> str:
    """host:port, lower case, with the port filled in when the header left it out."""
    netloc = netloc.lower()
    return netloc if ":" in netloc.rsplit("]", 1)[-1] else f"{netloc}:{default_port}"


def same_origin(value: Optional[str]) -> bool:
    """Origin (or Referer) names this server: same host and port (a Host header may omit the port)."""
    if not value:
        return False
    try:
        url = urlparse(value)
    except ValueError:   # "http://[::1" and the like: not an origin at all
        return False
    if url.scheme not in ("http", "https") or not url.netloc:
        return False
    theirs = _host_port(url.netloc, "443" if url.scheme == "https" else "80")
    return theirs == _host_port(request.host, request.environ.get("SERVER_PORT", "80"))


def guard_sockets() -> Optional[Response]:
    """A socket from a foreign page is refused before the handshake: it never gets a byte of a view."""
    if request.headers.get("Upgrade", "").lower() != "websocket" or not request.path.startswith("/api/"):
        return None
    if not request.headers.get("Host"):
        return refuse(400, "bad_request")   # RFC 6455 4.1: a handshake names its host
    if not same_origin(request.headers.get("Origin")):
        return refuse(403, "bad_origin")
    return None


def guard_writes() -> Optional[Response]:
    """CSRF as OWASP advises for JSON APIs: a JSON body and an Origin (or Referer) of this server."""
    if request.method in ("GET", "HEAD", "OPTIONS") or not request.path.startswith("/api/"):
        return None
    if request.routing_exception is not None:   # no such route or method: 404 or 405 says so first
        return None
    if request.mimetype != "application/json":
        return refuse(415, "bad_json")
    origin = request.headers.get("Origin")
    if not (same_origin(origin) if origin else same_origin(request.headers.get("Referer"))):
        return refuse(403, "bad_origin")
    return None


def init_app(app: Flask) -> None:
    app.before_request(guard_sockets)
    app.before_request(guard_writes)
    scripts = {}
    for name in INLINE:
        with open(os.path.join(app.static_folder, name), encoding="utf-8") as f:
            scripts[name] = slim(f.read())
    # A page writes one in with {{ inline_script("socket.js")|safe }}: the very text the policy's hash was taken of.
    app.jinja_env.globals["inline_script"] = scripts.__getitem__
    # Outermost: a foreign Host is refused before routing; every answer carries the page policy.
    app.wsgi_app = Guard(app.wsgi_app, lambda: app.config["JOIN_URL"], scripts.values())
