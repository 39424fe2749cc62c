"""A phone's bid or pass over its open live socket, answered on that socket once it is durable.

The same checks, rate limit, sentences and table path as POST /api/games/<id>/actions (web/api.py), without a
second connection, an HTTP parse or Flask's request machinery per bid. The phone sends
{"id": "<its id for this action>", "act": {<the POST body>}}; the answer is {"ack": id, "status": <the POST's
status>, "body": <the POST's body>}, sent after the views the action published. An id already answered is answered
again, never applied again (a resend after a reconnect). Runs on the live loop's thread (companion.live.wsloop)."""
from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from functools import cached_property
from typing import Callable, Optional

from flask import Flask

from companion.errors import Refused
from companion.game.errors import RuleError
from companion.lang import i18n
from companion.limits import ACTION_ID_LENGTH, SOCKET_ANSWERS_KEPT
from companion.store.db import StoreError, StoreFull
from companion.web.errors import refused_body, rule_body, sentence
from companion.web.fields import ACTION_FIELDS, action_fields, checked

log = logging.getLogger(__name__)


class Answers:
    """The answers given over sockets, by (device, action id): the newest SOCKET_ANSWERS_KEPT of them (a refusal's
    body, or None for an action applied: a view is not kept)."""

    def __init__(self, keep: int = SOCKET_ANSWERS_KEPT):
        self.keep = keep
        self._done: OrderedDict[tuple, tuple[int, Optional[str]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Optional[tuple[int, Optional[str]]]:
        with self._lock:
            return self._done.get(key)

    def put(self, key: tuple, done: tuple[int, Optional[str]]) -> None:
        with self._lock:
            self._done[key] = done
            while len(self._done) > self.keep:
                self._done.popitem(last=False)


class SocketActs:
    """What one socket's device sends to one game: its actions, as the POST route takes them."""

    def __init__(self, app: Flask, table, gid: str, device: str, language: Callable[[], str]):
        self.table, self.gid, self.device, self._language = table, gid, device, language
        self.limiter = app.extensions["rate_limit"]
        self.answers: Answers = app.extensions.setdefault("socket_answers", Answers())

    @cached_property
    def lang(self) -> str:
        """Chosen at the first answer, not at the handshake: the first choice loads the catalogs (about 0.3 s in a
        fresh server), and a socket's first view must not wait for that (a newer socket from the same device
        evicted one not yet handed to the loop, tests/test_server_budget.py)."""
        return self._language()

    def __call__(self, live, text: str) -> None:
        try:
            msg = json.loads(text)
        except (ValueError, RecursionError):
            msg = None
        aid = msg.get("id") if isinstance(msg, dict) else None
        if not (isinstance(aid, str) and 0 < len(aid) <= ACTION_ID_LENGTH) or set(msg) != {"id", "act"}:
            live.send_message(answer(None, 400, json.dumps(sentence(self.lang, "bad_json"))))
            return
        key = (self.device, aid)
        done = self.answers.get(key)
        if done is None:
            status, body = self.act(msg["act"])
            if status < 500:   # nothing was recorded on a 5xx: a resend may try again
                self.answers.put(key, (status, None if status == 200 else body))
        else:   # a resend: answered again, never applied again (a bid's answer is the device's view of now)
            status, body = done
            if body is None:
                body = self.table.view_json(self.gid, self.device)
        live.send_message(answer(aid, status, body))

    def act(self, data) -> tuple[int, str]:
        """The POST route's status and body for this action (web/api.py act, web/errors.py)."""
        try:
            data = action_fields(checked(data, ACTION_FIELDS))
            if not self.limiter.allow(self.device):
                raise Refused(429, "rate_limited")
            return 200, self.table.act(self.gid, self.device, data, data.get("expect_seq"))
        except Refused as e:
            if e.key == "stale":
                return 409, json.dumps({"error": i18n.t(self.lang, "stale"), "code": "stale",
                                        "view": self.table.view(self.gid, self.device)})
            game, seat = self.game_and_seat()
            return e.status, json.dumps(refused_body(e, self.lang, game, seat))
        except RuleError as e:
            game, seat = self.game_and_seat()
            return 422, json.dumps(rule_body(e, self.lang, game, seat))
        except StoreError as e:
            log.error("The database did not take a bid over a live socket: %s", e)
            full = isinstance(e, StoreFull)
            return (507, json.dumps(sentence(self.lang, "disk_full"))) if full else (
                503, json.dumps(sentence(self.lang, e.key)))
        except Exception:   # a bug must not stop the loop every other phone's socket runs on
            log.exception("A bid over a live socket failed")
            return 500, json.dumps({"error": "Internal Server Error", "code": "internal"})

    def game_and_seat(self):
        try:
            game = self.table.get(self.gid)
        except Refused:
            return None, None
        return game, game.seat_of(self.device)


def answer(aid: Optional[str], status: int, body: str) -> str:
    """The socket's answer around a body already encoded (a view is not decoded and encoded again)."""
    return '{"ack":%s,"status":%d,"body":%s}' % (json.dumps(aid), status, body)
