"""One phone in each engine phones run: Chromium (Playwright), WebKit (WebKitGTK's MiniBrowser driven by Debian's
WebKitWebDriver with Selenium, under Xvfb) and Gecko (Debian's firefox-esr over WebDriver BiDi on its own
--remote-debugging-port, no geckodriver). The same small interface for each: open, run a function, wait, click at a
point, and the console errors and CSP violations the page caused."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Optional

import pytest

from pages_helpers import ARGS, CHROMIUM, EXPOSE, EXPOSED

MINIBROWSER = next((p for p in ("/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
                                "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser") if Path(p).exists()), None)
WEBKITDRIVER = "/usr/bin/WebKitWebDriver"
FIREFOX = shutil.which("firefox-esr") or "/usr/bin/firefox-esr"
# The engine's own failures, not the page's (conftest.py runs such a WebKit test once more): WebKitWebDriver's words
# for a browser process that crashed or stopped answering, and a new session that never came.
WEBKIT_STALLED = "WebKitWebDriver did not start a session"
ENGINE_CRASHED = ("page crash or hang", WEBKIT_STALLED)

# Before any page script (Chromium, Gecko), or right after a load (WebKit: classic WebDriver has no preload):
# a CSP violation, an uncaught error or a rejected promise becomes a console error, and is kept in the page.
CATCH = """() => {
  if (window.__caught) return;
  window.__caught = [];
  const keep = t => { window.__caught.push(String(t)); };
  document.addEventListener('securitypolicyviolation', e => { keep('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI); console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI); });
  window.addEventListener('error', e => keep('error: ' + e.message));
  window.addEventListener('unhandledrejection', e => keep('unhandled rejection: ' + e.reason));
  const err = console.error.bind(console);
  console.error = function () { keep('console.error: ' + [].join.call(arguments, ' ')); return err.apply(null, arguments); };
}"""

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Phone:
    """What a test does with a phone, in any engine."""

    name = ""

    def js(self, fn: str, *args):
        """Calls the JavaScript function text `fn` with JSON-able `args`; returns its JSON-able result."""
        raise NotImplementedError

    def open(self, url: str) -> None:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    def size(self, width: int, height: int) -> None:
        raise NotImplementedError

    def click_at(self, x: float, y: float) -> None:
        raise NotImplementedError

    def problems(self) -> list[str]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def wait(self, fn: str, *args, timeout: float = 45.0):  # WebKit, at load 10, once took over 15 s to be live again
        end = time.monotonic() + timeout
        while True:
            try:
                got = self.js(fn, *args)
            except Exception:   # a page being replaced (reload, new language) has no script context for a moment
                got = None
            if got:
                return got
            if time.monotonic() > end:
                try:   # where the page was, for whoever reads the failure
                    state = self.js("() => [location.href, document.documentElement.lang, "
                                    "(document.getElementById('app') || {dataset: {}}).dataset.live]")
                except Exception as e:  # noqa: BLE001 (no script context: say so)
                    state = repr(e)[:200]
                raise AssertionError(f"{self.name}: still false after {timeout} s: {fn} {args}; page: {state}")
            time.sleep(0.1)

    def click(self, selector: str) -> None:
        """A real click (pointer down and up) at the middle of the element, scrolled into view first."""
        # As Playwright's own actionability checks: the element stays put for 0.1 s and is the one at that point
        # (a page still laying out moved the language buttons under WebKit's click at load 10: the click missed).
        where = """s => { const e = document.querySelector(s); e.scrollIntoView({block: 'center'});
            const r = e.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
            const at = document.elementFromPoint(x, y); return [x, y, !!at && (at === e || e.contains(at))]; }"""
        end, last = time.monotonic() + 45, None
        while True:
            x, y, hit = self.js(where, selector)
            if hit and (x, y) == last:
                break
            if time.monotonic() > end:
                raise AssertionError(f"{self.name}: {selector} did not hold still under the pointer for 45 s")
            last = (x, y)
            time.sleep(0.1)
        self.click_at(x, y)


class ChromiumPhone(Phone):
    name = "chromium"

    def __init__(self, playwright, width: int, height: int):
        if not Path(CHROMIUM).exists():
            pytest.fail(f"Chromium is missing at {CHROMIUM} (apt-get install chromium)", pytrace=False)
        self.browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        self.ctx = self.browser.new_context(viewport={"width": width, "height": height}, has_touch=True, is_mobile=True)
        self.page = self.ctx.new_page()
        self.page.add_init_script("(" + CATCH + ")()")
        self.seen: list[str] = []
        self.page.on("console", lambda m: self.seen.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.seen.append(f"page error: {e}"))

    def js(self, fn, *args):
        if EXPOSED.search(fn) and not self.page.evaluate("() => !!window.M"):
            self.page.evaluate(EXPOSE)
        return self.page.evaluate(f"(a) => ({fn}).apply(null, a)", list(args))

    def open(self, url):
        self.page.goto(url)

    def reload(self):
        self.page.reload()

    def size(self, width, height):
        self.page.set_viewport_size({"width": width, "height": height})

    def click_at(self, x, y):
        self.page.touchscreen.tap(x, y)

    def problems(self):
        return self.seen + (self.js("() => window.__caught || []") or [])

    def close(self):
        self.browser.close()


class Xvfb:
    """A virtual screen for WebKitGTK's MiniBrowser (it has no headless mode)."""

    def __init__(self):
        if not shutil.which("Xvfb"):
            pytest.fail("Xvfb is missing (apt-get install xvfb)", pytrace=False)
        for n in range(90, 140):
            if self._free(n):
                break
        else:
            raise RuntimeError("no free X display between :90 and :139")
        self.display = f":{n}"
        self.proc = subprocess.Popen(["Xvfb", self.display, "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 10
        while not Path(f"/tmp/.X11-unix/X{n}").exists():
            if time.monotonic() > end or self.proc.poll() is not None:
                raise RuntimeError("Xvfb did not start")
            time.sleep(0.05)

    @staticmethod
    def _free(n: int) -> bool:
        """Display n is free, or held only by the files of a server that is gone (a run that was killed leaves
        them; an X server clears such a stale lock itself)."""
        lock, sock = Path(f"/tmp/.X{n}-lock"), Path(f"/tmp/.X11-unix/X{n}")
        try:
            pid = int(lock.read_text().strip())
        except FileNotFoundError:
            return not sock.exists()
        except ValueError:
            return False
        try:
            os.kill(pid, 0)
            return False
        except ProcessLookupError:
            lock.unlink(missing_ok=True)
            sock.unlink(missing_ok=True)
            return True
        except PermissionError:
            return False

    def stop(self):
        self.proc.terminate()                       # asked, it removes its lock and socket
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


class WebKitPhone(Phone):
    """WebKitGTK's MiniBrowser, the engine of every iPhone browser's family, under WebDriver classic.
    Classic WebDriver has no preload script: the catcher is installed after each load (an error during the
    first script run shows as a page that never goes live, which every step waits for)."""

    name = "webkit"

    def __init__(self, width: int, height: int):
        if not (MINIBROWSER and Path(WEBKITDRIVER).exists()):
            pytest.fail("WebKitWebDriver or MiniBrowser is missing (apt-get install webkit2gtk-driver)", pytrace=False)
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        self.x = Xvfb()
        self.opened = False

        def start():
            opts = Options()
            opts.binary_location = MINIBROWSER
            opts.add_argument("--automation")
            service = Service(executable_path=WEBKITDRIVER, port=free_port(),
                              env=dict(os.environ, DISPLAY=self.x.display))
            # Once, in a full run at load 13-19, a browser started after a crash waited in WebKitWebDriver's new
            # session for 30 minutes. The driver is stopped after 90 s, so the session's request fails with an error
            # instead of holding the run.
            fired = []
            watchdog = threading.Timer(90, lambda: (fired.append(True), service.stop()))
            watchdog.start()
            try:
                self.d = webdriver.WebKitGTK(options=opts, service=service)
            except Exception as e:
                if fired:
                    raise RuntimeError(f"{WEBKIT_STALLED} in 90 s") from e
                raise
            finally:
                watchdog.cancel()
            self.d.set_script_timeout(20)
            self.size(width, height)

        self._start = start
        try:
            start()
        except Exception:
            self.x.stop()
            raise

    def js(self, fn, *args):
        if EXPOSED.search(fn) and not self.d.execute_script("return !!window.M"):
            self.d.execute_async_script(f"const done = arguments[arguments.length - 1]; ({EXPOSE})().then(done, done)")
        return self.d.execute_script(f"return ({fn}).apply(null, arguments)", *args)

    def _catch(self):
        self.js(CATCH)

    def open(self, url):
        from selenium.common.exceptions import InvalidSessionIdException, WebDriverException

        try:
            self.d.get(url)
        except WebDriverException as e:
            try:
                alive = bool(self.d.current_url)
            except InvalidSessionIdException:
                # Twice in full runs at load 10-16, MiniBrowser's web process crashed on the very first page a
                # fresh browser loaded, before any step of a test: that browser, and only at its first page, is
                # started again once. A crash after its first page fails the test.
                if self.opened:
                    raise e
                print(f"webkit: the fresh browser crashed loading {url}; started again once", file=sys.stderr)
                try:
                    self.d.quit()
                except Exception:
                    pass
                self.x.stop()                       # a fresh screen too: nothing of the crashed browser is kept
                self.x = Xvfb()
                self._start()
                alive = False
            else:
                # Once, in a full run at load 10, WebKitWebDriver answered a navigation from one game page to
                # another with an "unknown error" that said nothing at all. Any error that says something fails
                # at once; the empty one is tried again once, while the browser still answers.
                if e.msg or not alive:
                    raise
                print(f"webkit: navigation to {url} answered with an empty unknown error; tried once more",
                      file=sys.stderr)
            self.d.get(url)
        self.opened = True
        self._catch()

    def reload(self):
        self.d.refresh()
        self._catch()

    def size(self, width, height):
        # The window holds the page and nothing else in automation mode; corrected once if it does not.
        self.d.set_window_size(width, height)
        inner = self.js("() => [innerWidth, innerHeight]") if self.d.current_url.startswith("http") else [width, height]
        if inner != [width, height]:
            self.d.set_window_size(2 * width - inner[0], 2 * height - inner[1])

    def click_at(self, x, y):
        from selenium.webdriver.common.actions.action_builder import ActionBuilder

        from selenium.common.exceptions import WebDriverException

        ab = ActionBuilder(self.d)
        ab.pointer_action.move_to_location(int(round(x)), int(round(y))).click()
        try:
            ab.perform()
        except WebDriverException as e:
            # In full runs at load 15-20 WebKitWebDriver answered a tap with an "unknown error" that said nothing
            # (the same empty answer as open's above), the browser still answering. The tap may have landed:
            # every step after a tap waits for what the tap does, so one that did not land still fails there.
            if e.msg or not self.d.current_url:
                raise
            print(f"webkit: a tap at {x:.0f},{y:.0f} answered with an empty unknown error", file=sys.stderr)

    def problems(self):
        return self.js("() => window.__caught || []") or []

    def close(self):
        try:
            self.d.quit()
        finally:
            self.x.stop()


class GeckoPhone(Phone):
    """Debian's firefox-esr, headless, spoken to over WebDriver BiDi on its own remote debugging port."""

    name = "gecko"

    def __init__(self, width: int, height: int):
        import websocket   # websocket-client, locked with the test tools

        if not Path(FIREFOX).exists():
            pytest.fail("firefox-esr is missing (apt-get install firefox-esr)", pytrace=False)
        self.profile = tempfile.mkdtemp(prefix="gecko-")
        Path(self.profile, "user.js").write_text('user_pref("browser.shell.checkDefaultBrowser", false);\n'
                                                 'user_pref("datareporting.policy.dataSubmissionEnabled", false);\n'
                                                 'user_pref("app.update.disabledForTesting", true);\n')
        port = free_port()
        self.proc = subprocess.Popen([FIREFOX, "--headless", "--no-remote", "--profile", self.profile,
                                      "--remote-debugging-port", str(port), "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        end = time.monotonic() + 60
        while True:
            try:
                self.ws = websocket.create_connection(f"ws://127.0.0.1:{port}/session", suppress_origin=True, timeout=60)
                break
            except (OSError, websocket.WebSocketException):
                if time.monotonic() > end or self.proc.poll() is not None:
                    self.close()
                    raise RuntimeError("firefox-esr's WebDriver BiDi port did not answer")
                time.sleep(0.2)
        self.n = 0
        self.seen: list[str] = []
        self.cmd("session.new", {"capabilities": {}})
        self.ctx = self.cmd("browsingContext.getTree", {})["contexts"][0]["context"]
        self.cmd("session.subscribe", {"events": ["log.entryAdded"]})
        self.cmd("script.addPreloadScript", {"functionDeclaration": CATCH})
        self.size(width, height)

    def cmd(self, method: str, params: dict) -> dict:
        self.n += 1
        self.ws.send(json.dumps({"id": self.n, "method": method, "params": params}))
        while True:
            m = json.loads(self.ws.recv())
            if m.get("method") == "log.entryAdded":
                e = m["params"]
                if e.get("level") == "error":
                    self.seen.append(f"{e.get('type')} error: {e.get('text')}")
                continue
            if m.get("id") == self.n:
                if m.get("type") == "error":
                    raise AssertionError(f"gecko {method}: {m.get('error')}: {m.get('message')}")
                return m["result"]

    def js(self, fn, *args):
        if EXPOSED.search(fn) and not self._eval("!!window.M", False):
            self._eval(f"({EXPOSE})()", True)
        return self._eval(f"({fn}).apply(null, {json.dumps(list(args))})", False)

    def _eval(self, expression, wait):
        r = self.cmd("script.evaluate", {"expression": f"Promise.resolve({expression}).then(JSON.stringify)" if wait
                                         else f"JSON.stringify({expression})",
                                         "target": {"context": self.ctx}, "awaitPromise": wait})
        if r.get("type") == "exception":
            raise AssertionError(f"gecko script: {r['exceptionDetails'].get('text')}")
        value = r["result"].get("value")
        return None if value is None else json.loads(value)

    def open(self, url):
        self.cmd("browsingContext.navigate", {"context": self.ctx, "url": url, "wait": "complete"})

    def reload(self):
        self.cmd("browsingContext.reload", {"context": self.ctx, "wait": "complete"})

    def size(self, width, height):
        self.cmd("browsingContext.setViewport", {"context": self.ctx, "viewport": {"width": width, "height": height}})

    def click_at(self, x, y):
        self.cmd("input.performActions", {"context": self.ctx, "actions": [{
            "type": "pointer", "id": "finger", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "x": int(round(x)), "y": int(round(y)), "origin": "viewport"},
                        {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})
        self.cmd("input.releaseActions", {"context": self.ctx})

    def problems(self):
        return self.seen + (self.js("() => window.__caught || []") or [])

    def close(self):
        try:
            if getattr(self, "ws", None):
                try:
                    self.cmd("session.end", {})
                except Exception:
                    pass
                self.ws.close()
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait(timeout=20)
            shutil.rmtree(self.profile, ignore_errors=True)


def phone(engine: str, playwright, width: int = 390, height: int = 844) -> Phone:
    if engine == "chromium":
        return ChromiumPhone(playwright, width, height)
    if engine == "webkit":
        return WebKitPhone(width, height)
    return GeckoPhone(width, height)


def wait_live(p: Phone, seq: Optional[int] = None) -> None:
    p.wait("n => { const a = document.getElementById('app'); return !!a && a.dataset.live === '1' && +(a.dataset.seq ?? -1) >= n; }",
           -1 if seq is None else seq)
