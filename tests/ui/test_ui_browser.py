"""Real-browser test of `flowcut ui`: Debian's headless Chromium driven
through ChromeDriver (WebDriver over HTTP, standard library only). Paints a
background stroke with pointer events, waits for the overlay to follow,
saves, and checks the saved mask against the server's and a replay through
`flowcut segment`. Then, on a session without seeds, click mode: a click on
the object gives a mask, a Shift-click and a right-click add background
clicks, a drag draws a box, a tiny drag is a click, undo takes a prompt
back, and a cut slowed on purpose says "Cutting…" until its answer. On a
1.5 Mpx photo a click shows its preview, then the exact mask.
Prints the stroke-to-overlay and click-to-mask times measured in the page.
Skips (exit 77) with a clear message where Chromium cannot start.

    test_ui_browser.py FLOWCUT [SCREENSHOT_DIR] [PHOTO SEEDS]"""
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from uitest import Server, big_photo, mask_png_bits, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
EX = os.path.join(HERE, "..", "..", "examples")


def open_page(wd, srv):
    """Opens the server's page; True once it says it is ready."""
    wd.s("POST", "/url", {"url": srv.url})
    return wait_for(lambda: wd.js("return !!(window.flowcut && window.flowcut.ready)"), 60)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class WebDriver:
    def __init__(self, driver, chromium, profile):
        self.port = free_port()
        self.proc = subprocess.Popen([driver, "--port=%d" % self.port], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        if not wait_for(lambda: self._up(), 20):
            raise RuntimeError("chromedriver did not start")
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-quic", "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--window-size=1280,860",
                     "--user-data-dir=" + profile]}}}}
        self.sid = self.call("POST", "/session", caps)["sessionId"]

    def _up(self):
        try:
            return self.call("GET", "/status")["ready"]
        except OSError:
            return False

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            raise RuntimeError("webdriver %s %s: %s" % (method, path, e.read()[:400]))

    def s(self, method, path, body=None):
        return self.call(method, "/session/%s%s" % (self.sid, path), body)

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def click(self, css):
        el = self.s("POST", "/element", {"using": "css selector", "value": css})
        self.s("POST", "/element/%s/click" % list(el.values())[0], {})

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.s("GET", "/screenshot")))

    def drag(self, points, button=0, down=True, up=True, keys=None):
        """Moves to the first point, presses (down), moves through the rest, releases (up).
        keys: a key held meanwhile (e.g. Shift, "\ue008")."""
        acts = [{"type": "pointerMove", "x": int(points[0][0]), "y": int(points[0][1]), "origin": "viewport"}]
        if down:
            acts.append({"type": "pointerDown", "button": button})
        for x, y in points[1:]:
            acts.append({"type": "pointerMove", "x": int(x), "y": int(y), "origin": "viewport", "duration": 20})
        if up:
            acts.append({"type": "pointerUp", "button": button})
        sources = [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": acts}]
        if keys:
            sources.append({"type": "key", "id": "kb", "actions": [{"type": "keyDown", "value": keys}] +
                            [{"type": "pause"}] * (len(acts) - 1) + [{"type": "keyUp", "value": keys}]})
        self.s("POST", "/actions", {"actions": sources})

    def key(self, k):
        self.s("POST", "/actions", {"actions": [{"type": "key", "id": "kb", "actions": [
            {"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}]}]})

    def quit(self):
        try:
            self.s("DELETE", "")
        except Exception:
            pass
        self.proc.terminate()
        self.proc.wait(timeout=20)


def fnv1a(data):
    """32-bit FNV-1a, as the page's window.flowcut.seedsHash."""
    h = 0x811c9dc5
    for v in data:
        h = ((h ^ v) * 16777619) & 0xffffffff
    return h


def main():
    flowcut = sys.argv[1]
    shots = sys.argv[2] if len(sys.argv) > 2 else None
    photo_src = sys.argv[3] if len(sys.argv) > 3 else os.path.join(EX, "coffee.png")
    seeds = sys.argv[4] if len(sys.argv) > 4 else os.path.join(EX, "coffee-seeds.png")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        print("skipped: Chromium or ChromeDriver not installed (Debian: chromium chromium-driver)")
        return 77
    r = subprocess.run([flowcut, "ui", "/nonexistent/none.png"], capture_output=True, text=True)
    if "no web UI" in r.stderr:
        print("skipped: this build has no web UI")
        return 77
    tmp = tempfile.mkdtemp(prefix="flowcut-browser-")
    fails = []
    try:
        photo = os.path.join(tmp, os.path.basename(photo_src))
        shutil.copy(photo_src, photo)
        srv = Server(flowcut, photo, "--seeds", seeds, "-q")
        try:
            wd = WebDriver(driver, chromium, os.path.join(tmp, "profile"))
        except Exception as e:
            srv.stop()
            print("skipped: Chromium cannot start here: %s" % e)
            return 77
        try:
            if not open_page(wd, srv):
                fails.append("the page never became ready: " + str(wd.js("return document.body.innerText")))
                return 1
            if shots:
                wd.screenshot(os.path.join(shots, "ui-start.png"))
            _, before = srv.request("GET", "/api/mask")
            v0 = wd.js("return window.flowcut.version")
            # a background stroke down the cup's right side, across the foreground
            # (image coordinates): its pixels turn background, so the mask must change
            wd.click("#b-bg")
            if wd.js("return window.flowcut.label()") != 2:
                fails.append("the Background button did not select the background brush")
            st = json.loads(srv.request("GET", "/api/state")[1])
            w, h = st["width"], st["height"]
            pts = [wd.js("return window.flowcut.toClient(arguments[0], arguments[1])", w * 0.75, h * fy)
                   for fy in (0.15, 0.35, 0.55, 0.75)]
            wd.drag(pts)
            if not wait_for(lambda: wd.js("return window.flowcut.version") > v0
                            and wd.js("return window.flowcut.latencies.length") > 0, 60):
                fails.append("the overlay did not update after the stroke")
            lat = wd.js("return window.flowcut.latencies[window.flowcut.latencies.length - 1]")
            # then the page asks for the re-fitted models' cut
            if not wait_for(lambda: wd.js("return window.flowcut.refineMs.length") > 0
                            and wd.js("return window.flowcut.refined"), 120):
                fails.append("the page did not refine after the stroke")
            refine = wd.js("return window.flowcut.refineMs[window.flowcut.refineMs.length - 1]")
            _, after = srv.request("GET", "/api/mask")
            if after == before:
                fails.append("the stroke did not change the mask")
            js = json.loads(srv.request("GET", "/api/state")[1])
            print("stroke to overlay in the browser: %.1f ms; refined overlay %.1f ms later (%dx%d, %s)" %
                  (lat, refine or -1, w, h, js["engine"]))
            # keyboard: V cycles the view; the status line shows the cut
            wd.s("POST", "/actions", {"actions": [{"type": "key", "id": "kb", "actions": [
                {"type": "keyDown", "value": "v"}, {"type": "keyUp", "value": "v"}]}]})
            if wd.js("return window.flowcut.mode()") != "mask":
                fails.append("V did not switch to the mask view")
            if shots:
                wd.screenshot(os.path.join(shots, "ui-mask.png"))
            wd.click("#v-overlay")
            # save the mask and the seeds from the page
            wd.click("#save-seeds")
            wd.click("#b-save")
            stem = os.path.splitext(photo)[0]
            if not wait_for(lambda: "Saved" in wd.js("return document.getElementById('status').textContent"), 30):
                fails.append("no 'Saved' status: " + wd.js("return document.getElementById('status').textContent"))
            if shots:
                wd.screenshot(os.path.join(shots, "ui-stroke.png"))
            # two fingers moving apart zoom in, and paint nothing
            z0 = wd.js("return window.flowcut.zoom()")
            v1 = wd.js("return window.flowcut.version")
            c = wd.js("return window.flowcut.toClient(arguments[0], arguments[1])", w / 2, h / 2)

            def finger(name, dx):
                return {"type": "pointer", "id": name, "parameters": {"pointerType": "touch"}, "actions": [
                    {"type": "pointerMove", "x": int(c[0] + dx), "y": int(c[1]), "origin": "viewport"},
                    {"type": "pointerDown", "button": 0},
                    {"type": "pointerMove", "x": int(c[0] + 3 * dx), "y": int(c[1]), "origin": "viewport",
                     "duration": 200},
                    {"type": "pointerUp", "button": 0}]}
            wd.s("POST", "/actions", {"actions": [finger("f1", -30), finger("f2", 30)]})
            z1 = wd.js("return window.flowcut.zoom()")
            if not z1 > 1.5 * z0:
                fails.append("pinch did not zoom in: %.3f -> %.3f" % (z0, z1))
            if wd.js("return window.flowcut.version") != v1:
                fails.append("the pinch painted a stroke")
            if not os.path.exists(stem + ".mask.png") or mask_png_bits(stem + ".mask.png") != after:
                fails.append("the saved mask is not the page's mask")
            replay = os.path.join(tmp, "replay.png")  # flowcut ui runs segment's energy
            r = subprocess.run([flowcut, "segment", photo, "--seeds", stem + ".seeds.png", "-o", replay],
                               capture_output=True, text=True)
            if r.returncode != 0 or mask_png_bits(replay) != after:
                fails.append("replaying the saved seeds with flowcut segment gave another mask: " + r.stderr)
        finally:
            wd.quit()
            srv.stop(signal.SIGINT)
        clicks(flowcut, chromium, driver, photo, tmp, shots, fails)
        previews(flowcut, chromium, driver, tmp, shots, fails)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("FAIL:", f)
    print("%d failures" % len(fails))
    return 1 if fails else 0


def clicks(flowcut, chromium, driver, photo, tmp, shots, fails):
    """Click mode on a session that starts without seeds."""
    srv = Server(flowcut, photo, "-q")
    wd = WebDriver(driver, chromium, os.path.join(tmp, "profile2"))
    try:
        if not open_page(wd, srv):
            fails.append("clicks: the page never became ready")
            return
        st = json.loads(srv.request("GET", "/api/state")[1])
        w, h = st["width"], st["height"]
        at = lambda fx, fy: wd.js("return window.flowcut.toClient(arguments[0], arguments[1])", w * fx, h * fy)
        px = lambda fx, fy: (int(w * fx), int(h * fy))
        wd.key("c")
        if wd.js("return window.flowcut.tool()") != "click" or \
                not wd.js("return document.getElementById('b-click').classList.contains('on')"):
            fails.append("C did not select click mode")

        def settle(n):
            """Waits for the n-th prompt to be listed and the refined mask to be drawn."""
            return wait_for(lambda: len(wd.js("return window.flowcut.prompts()")) == n
                            and wd.js("return window.flowcut.refined && window.flowcut.clickMs.length") > 0
                            and not wd.js("return document.getElementById('status').className"), 120)

        def mask_at(p):
            return wd.js("return window.flowcut.maskAt(arguments[0], arguments[1])", *p)

        # a click on the cup: one foreground click alone gives a mask
        obj = (0.5, 0.5)
        wd.drag([at(*obj)])
        if not settle(1):
            fails.append("clicks: no mask after a click: %s" % wd.js("return document.getElementById('status').textContent"))
        first = wd.js("return window.flowcut.clickMs[0]")
        # the pointer lands on whole screen pixels: the image pixel may be off by one screen pixel's worth
        tol = int(1 / wd.js("return window.flowcut.zoom()")) + 1
        near = lambda q, f, label: len(q) == 4 and q[2] == label and \
            abs(q[0] - px(*f)[0]) <= tol and abs(q[1] - px(*f)[1]) <= tol
        pr = wd.js("return window.flowcut.prompts()")
        if len(pr) != 1 or not near(pr[0], obj, 1):
            fails.append("clicks: the click is not listed: %r" % wd.js("return window.flowcut.prompts()"))
        if mask_at(px(*obj)) != 1:
            fails.append("clicks: the clicked pixel is not foreground in the page's mask")
        if wd.js("return document.querySelectorAll('#marks circle.dot.pos').length") != 1:
            fails.append("clicks: no foreground dot drawn")
        if shots:
            wd.screenshot(os.path.join(shots, "ui-click.png"))
        # a Shift-click on the table: a background click
        neg = (0.08, 0.85)
        wd.drag([at(*neg)], keys="\ue008")
        if not settle(2):
            fails.append("clicks: the Shift-click was not listed: %r" % wd.js("return window.flowcut.prompts()"))
        elif not near(wd.js("return window.flowcut.prompts()")[1], neg, 2):
            fails.append("clicks: the Shift-click is not a background click: %r" % wd.js("return window.flowcut.prompts()"))
        if mask_at(px(*neg)) != 0:
            fails.append("clicks: the Shift-clicked pixel is foreground")
        # a right-click: a background click too, and no context menu
        wd.js("window.addEventListener('contextmenu', (e) => { window.menuShown = !e.defaultPrevented; })")
        neg2 = (0.92, 0.1)
        wd.drag([at(*neg2)], button=2)
        if not settle(3) or not near(wd.js("return window.flowcut.prompts()")[2], neg2, 2):
            fails.append("clicks: the right-click is not a background click: %r" % wd.js("return window.flowcut.prompts()"))
        if wd.js("return window.menuShown") is not False:
            fails.append("clicks: the right-click let the context menu through")
        if wd.js("return document.querySelectorAll('#marks circle.dot.neg').length") != 2:
            fails.append("clicks: not two background dots")
        # the page's seeds are the server's: a corrected click's disc is the radius the server chose
        _, server_seeds = srv.request("GET", "/api/seeds")
        if wd.js("return window.flowcut.seedsHash()") != fnv1a(server_seeds):
            fails.append("clicks: the page's seeds differ from the server's after the clicks")
        # a drag draws the box while it goes, then sends it
        b0, b1 = (0.1, 0.05), (0.85, 0.95)
        wd.drag([at(*b0), at(0.5, 0.5), at(*b1)], up=False)
        rect = wd.js("const r = document.querySelector('#marks rect.box.drag'); "
                     "return r && [+r.getAttribute('width'), +r.getAttribute('height')]")
        if not rect or rect[0] < 100 or rect[1] < 100:
            fails.append("clicks: no rectangle drawn while dragging: %r" % rect)
        if shots:
            wd.screenshot(os.path.join(shots, "ui-box-drag.png"))
        wd.s("POST", "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
                                               "actions": [{"type": "pointerUp", "button": 0}]}]})
        if not settle(4):
            fails.append("clicks: the box was not listed: %r" % wd.js("return window.flowcut.prompts()"))
        pr = wd.js("return window.flowcut.prompts()")
        box = pr[3][1:] if len(pr) > 3 and pr[3][0] == "box" else [0, 0, w, h]
        if len(box) != 4 or abs(box[0] - w * b0[0]) > tol + 1 or abs(box[0] + box[2] - w * b1[0]) > tol + 1:
            fails.append("clicks: the box is not the dragged one: %r" % box)
        if wd.js("return document.querySelectorAll('#marks rect.box').length") != 1:
            fails.append("clicks: the box is not drawn once")
        _, bits = srv.request("GET", "/api/mask")
        outside = [i for i in range(w * h) if (bits[i >> 3] >> (i & 7)) & 1 and
                   not (box[0] <= i % w < box[0] + box[2] and box[1] <= i // w < box[1] + box[3])]
        if outside:
            fails.append("clicks: %d foreground pixels outside the box" % len(outside))
        if mask_at(px(*obj)) != 1:
            fails.append("clicks: the cup is not foreground inside the box")
        if shots:
            wd.screenshot(os.path.join(shots, "ui-box.png"))
        # a drag of two pixels is a click
        c = at(0.55, 0.45)
        wd.drag([c, (c[0] + 2, c[1] + 1)])
        if not settle(5) or wd.js("return window.flowcut.prompts()")[4][0] == "box":
            fails.append("clicks: a tiny drag was not a click: %r" % wd.js("return window.flowcut.prompts()"))
        # undo takes the last prompt back, the box stays
        wd.click("#b-undo")
        if not settle(4) or wd.js("return window.flowcut.prompts()")[3][0] != "box":
            fails.append("clicks: undo did not take the click back: %r" % wd.js("return window.flowcut.prompts()"))
        parts = wd.js("return window.flowcut.clickParts")  # the real cuts' times, for the report below
        # a cut that takes a while says so on the status line, then gives its answer
        wd.js("window.realFetch = window.fetch; window.fetch = (...a) => "
              "new Promise((ok) => setTimeout(ok, 1000)).then(() => window.realFetch(...a));")
        wd.drag([at(0.45, 0.55)])
        if not wait_for(lambda: "Cutting" in wd.js("return document.getElementById('status').textContent"), 3, 0.02):
            fails.append("clicks: a slow cut did not say so: %r" % wd.js("return document.getElementById('status').textContent"))
        if not settle(5) or "Cutting" in wd.js("return document.getElementById('status').textContent"):
            fails.append("clicks: the slow cut's answer did not replace the notice: %r" %
                         wd.js("return document.getElementById('status').textContent"))
        wd.js("window.fetch = window.realFetch;")
        wd.click("#b-undo")
        if not settle(4):
            fails.append("clicks: undo after the slow cut: %r" % wd.js("return window.flowcut.prompts()"))
        # a double click is one click
        d = at(0.4, 0.6)
        press = [{"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]
        wd.s("POST", "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
                                               "actions": [{"type": "pointerMove", "x": int(d[0]), "y": int(d[1]),
                                                            "origin": "viewport"}] + press + press}]})
        if not settle(5):
            fails.append("clicks: the double click was not listed: %r" % wd.js("return window.flowcut.prompts()"))
        time.sleep(0.3)
        if len(wd.js("return window.flowcut.prompts()")) != 5:
            fails.append("clicks: a double click made two clicks: %r" % wd.js("return window.flowcut.prompts()"))
        wd.click("#b-undo")
        if not settle(4):
            fails.append("clicks: undo after the double click: %r" % wd.js("return window.flowcut.prompts()"))
        # B goes back to the brush
        wd.key("b")
        if wd.js("return window.flowcut.tool()") != "brush" or wd.js("return window.flowcut.label()") != 2:
            fails.append("B did not go back to the background brush")
        exact = wd.js("return window.flowcut.exactMs")
        print("click (or box) to mask on screen in the browser, %dx%d, %s: first %.1f ms (%s), then" %
              (w, h, st["engine"], first, "a preview" if parts and parts[0].get("preview") else "cold"))
        for p in parts[1:]:
            print("  %6.0f ms = server %s %.0f + request %.0f + mask transfer and drawing %.0f" %
                  (p["total"], "preview" if p.get("preview") else "cut", p["cut"], p["request"], p["draw"]))
        if exact:
            print("  the exact masks after the previews, from the edit: %s ms" % ", ".join("%.0f" % e for e in exact))
        # the server gone: the page says so instead of a bare network error
        srv.stop(signal.SIGINT)
        wd.key("c")
        wd.drag([at(0.3, 0.3)])
        if not wait_for(lambda: "Lost the connection" in wd.js("return document.getElementById('status').textContent"),
                        10):
            fails.append("a lost server: the status line says %r" % wd.js("return document.getElementById('status').textContent"))
    finally:
        wd.quit()
        srv.stop(signal.SIGINT)


def previews(flowcut, chromium, driver, tmp, shots, fails):
    """A 1.5 Mpx photo: a click's answer is a preview, then the exact mask."""
    big = os.path.join(tmp, "big.png")
    w, h = big_photo(big, EX)
    srv = Server(flowcut, big, "-q", "--engine", "cpu")
    wd = WebDriver(driver, chromium, os.path.join(tmp, "profile3"))
    try:
        if not open_page(wd, srv):
            fails.append("previews: the page never became ready")
            return
        wd.key("c")
        wd.drag([wd.js("return window.flowcut.toClient(arguments[0], arguments[1])", w * 0.5, h * 0.5)])
        if not wait_for(lambda: wd.js("return window.flowcut.exactMs.length") > 0
                        and wd.js("return window.flowcut.refined"), 120):
            fails.append("previews: no exact mask after the click: %r" %
                         wd.js("return document.getElementById('status').textContent"))
            return
        parts = wd.js("return window.flowcut.clickParts")
        if not parts or not parts[0]["preview"]:
            fails.append("previews: the click's first answer was not a preview: %r" % parts)
        text = wd.js("return document.getElementById('status').textContent")
        if "preview" in text or "refining" in text:
            fails.append("previews: the status line still speaks of the preview: %r" % text)
        _, bits = srv.request("GET", "/api/mask")
        page = wd.js("return Array.from(window.flowcut.maskBytes())")
        if bytes(page) != bits:
            fails.append("previews: the page's mask is not the server's exact one")
        if shots:
            wd.screenshot(os.path.join(shots, "ui-preview.png"))
        print("a click on %dx%d: its preview on screen %.0f ms (server %.0f), the exact mask %.0f ms" %
              (w, h, parts[0]["total"], parts[0]["cut"], wd.js("return window.flowcut.exactMs[0]")))
    finally:
        wd.quit()
        srv.stop(signal.SIGINT)


if __name__ == "__main__":
    sys.exit(main())
