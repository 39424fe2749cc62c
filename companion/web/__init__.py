"""The web shell: blueprints hold routes only; device identity, guards, refusals and compression are set up here, once."""
from __future__ import annotations

from flask import Flask

from companion.web import api, compress, device, errors, guard, history, pages, throttle


def init_app(app: Flask) -> None:
    device.init_app(app)       # who is asking: cookie, language, the Pi's own screen
    throttle.init_app(app)     # token buckets per device and per address
    errors.init_app(app)       # every refusal a sentence in the device's language
    compress.init_app(app)
    app.register_blueprint(api.bp)
    app.add_url_rule("/api/games/<gid>/live", view_func=api.live, websocket=True)
    app.register_blueprint(pages.bp)
    app.register_blueprint(history.bp)
    guard.init_app(app)        # last, so outermost: a foreign Host is refused before routing
