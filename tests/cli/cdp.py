#!/usr/bin/env python3
"""cdp.py - drive headless Chromium through the DevTools protocol over a pipe
(--remote-debugging-pipe: NUL-separated JSON on fds 3 and 4), with nothing
but the Python standard library: no npm, no WebSocket client.

usage: cdp.py [--size WxH] [--timeout S] URL STEP...

Steps run in order:
  wait:EXPR    poll the JS expression until it is truthy (fails after --timeout)
  eval:EXPR    print "eval: <JSON of the value>"
  sh:CMD       run a shell command (its output goes to stderr)
  shot:FILE    save a PNG screenshot of the whole page (the viewport grows to it)
  view:FILE    save a PNG screenshot of the viewport (before any shot:)
  sleep:S      wait S seconds
Every console message and uncaught exception is printed as "console: LEVEL
TEXT"; the last line is "console-errors: N" (errors and warnings counted,
exceptions included).  Exit status 0, or 1 when a step failed (a timeout,
chromium died), 2 on bad usage.  The browser gets its own empty profile
under a fresh temporary directory and is stopped by its pid.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CHROME = shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"


class Browser:
    def __init__(self, width, height):
        self.prof = tempfile.mkdtemp(prefix="gs-cdp-")
        to_chrome_r, self.to_chrome_w = os.pipe()
        self.from_chrome_r, from_chrome_w = os.pipe()
        # Chromium reads commands on fd 3 and writes replies on fd 4.
        os.dup2(to_chrome_r, 103)
        os.dup2(from_chrome_w, 104)
        args = [CHROME, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--mute-audio",
                # the page polls with timers: keep them running at full rate
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                "--disable-backgrounding-occluded-windows",
                "--user-data-dir=" + self.prof, "--remote-debugging-pipe",
                "--window-size=%d,%d" % (width, height), "about:blank"]

        def child():
            os.dup2(103, 3)
            os.dup2(104, 4)

        self.proc = subprocess.Popen(args, pass_fds=(3, 4, 103, 104), preexec_fn=child,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (103, 104, to_chrome_r, from_chrome_w):
            os.close(fd)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None
        self.errors = 0

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome_w, json.dumps(msg).encode() + b"\0")
        want = self.next_id
        while True:
            m = self.read()
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.event(m)

    def read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.from_chrome_r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def event(self, m):
        meth, p = m.get("method"), m.get("params", {})
        if meth == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            self.note(p.get("type", "log"), text)
        elif meth == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.note("exception", d.get("exception", {}).get("description", d.get("text", "")))
        elif meth == "Log.entryAdded":
            e = p.get("entry", {})
            self.note(e.get("level", "info"), e.get("text", "") + " " + e.get("url", ""))

    def note(self, level, text):
        print("console: %s %s" % (level, text.replace("\n", " ")[:400]))
        if level in ("error", "warning", "exception", "assert"):
            self.errors += 1

    def pump(self, seconds):
        """Let events arrive for `seconds` (a cheap round trip keeps reading)."""
        end = time.time() + seconds
        while time.time() < end:
            self.send("Runtime.evaluate", {"expression": "0"})
            time.sleep(0.05)

    def open(self, url, width, height):
        t = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        a = self.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True},
                      session=False)
        self.session = a["sessionId"]
        self.send("Target.activateTarget", {"targetId": t["targetId"]}, session=False)
        for m in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.send(m)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.navigate", {"url": url})

    def evaluate(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("eval %s: %s" % (expr, r["exceptionDetails"].get("text")))
        return r.get("result", {}).get("value")

    def evaluate_quiet(self, expr):
        """The value, or None while the expression throws (page still loading)."""
        try:
            return self.evaluate(expr)
        except RuntimeError:
            return None

    def screenshot(self, path, width):
        h = self.evaluate("Math.ceil(document.documentElement.scrollHeight)") or 800
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": int(h), "deviceScaleFactor": 1, "mobile": False})
        r = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.prof, ignore_errors=True)


def run_steps(b, steps, timeout):
    for step in steps:
        kind, _, arg = step.partition(":")
        if kind == "wait":
            end = time.time() + timeout
            while not b.evaluate_quiet("!!(" + arg + ")"):
                if time.time() > end:
                    print("timeout: %s" % arg)
                    return 1
                time.sleep(0.1)
            print("waited: %s" % arg)
        elif kind == "eval":
            print("eval: %s" % json.dumps(b.evaluate(arg)))
        elif kind == "sh":
            subprocess.run(arg, shell=True, stdout=sys.stderr, check=False)
        elif kind == "shot":
            b.screenshot(arg, b.width)
            print("shot: %s" % arg)
        elif kind == "view":
            r = b.send("Page.captureScreenshot", {"format": "png"})
            with open(arg, "wb") as f:
                f.write(base64.b64decode(r["data"]))
            print("view: %s" % arg)
        elif kind == "sleep":
            b.pump(float(arg))
        else:
            print("cdp.py: unknown step %r" % step, file=sys.stderr)
            return 2
        sys.stdout.flush()
    return 0


def main(argv):
    width, height, timeout = 1400, 900, 30.0
    args = argv[1:]
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--size":
            width, height = (int(x) for x in args.pop(0).split("x"))
        elif opt == "--timeout":
            timeout = float(args.pop(0))
        else:
            print(__doc__, file=sys.stderr)
            return 2
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    b = Browser(width, height)
    b.width = width
    status = 1
    try:
        b.open(args[0], width, height)
        status = run_steps(b, args[1:], timeout)
        b.pump(0.3)
    except Exception as e:  # report, never hang: the browser is closed below
        print("error: %s" % e)
        status = 1
    finally:
        print("console-errors: %d" % b.errors)
        b.close()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
