"""Real-browser test of `flowcut ui`: Debian's headless Chromium driven
through ChromeDriver (WebDriver over HTTP, standard library only). Paints a
background stroke with pointer events, waits for the overlay to follow,
saves, and checks the saved mask against the server's and a replay through
`flowcut segment`. Prints the stroke-to-overlay time measured in the page.
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

from uitest import Server, mask_png_bits, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
EX = os.path.join(HERE, "..", "..", "examples")


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

    def drag(self, points):
        acts = [{"type": "pointerMove", "x": int(points[0][0]), "y": int(points[0][1]), "origin": "viewport"},
                {"type": "pointerDown", "button": 0}]
        for x, y in points[1:]:
            acts.append({"type": "pointerMove", "x": int(x), "y": int(y), "origin": "viewport", "duration": 20})
        acts.append({"type": "pointerUp", "button": 0})
        self.s("POST", "/actions", {"actions": [{"type": "pointer", "id": "mouse",
                                                 "parameters": {"pointerType": "mouse"}, "actions": acts}]})

    def quit(self):
        try:
            self.s("DELETE", "")
        except Exception:
            pass
        self.proc.terminate()
        self.proc.wait(timeout=20)


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
            wd.s("POST", "/url", {"url": srv.url})
            if not wait_for(lambda: wd.js("return !!(window.flowcut && window.flowcut.ready)"), 60):
                fails.append("the page never became ready: " + str(wd.js("return document.body.innerText")))
                return 1
            if shots:
                wd.screenshot(os.path.join(shots, "ui-start.png"))
            _, before = srv.request("GET", "/api/mask")
            v0 = wd.js("return window.flowcut.version")
            # a background stroke across the right part of the photo (image coordinates)
            wd.click("#b-bg")
            if wd.js("return window.flowcut.label()") != 2:
                fails.append("the Background button did not select the background brush")
            st = json.loads(srv.request("GET", "/api/state")[1])
            w, h = st["width"], st["height"]
            pts = [wd.js("return window.flowcut.toClient(arguments[0], arguments[1])", w * 0.93, h * fy)
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
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("FAIL:", f)
    print("%d failures" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
