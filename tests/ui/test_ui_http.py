"""HTTP tests of `flowcut ui`: the token, limits, bad requests (4xx while the
server keeps running), strokes/undo/redo/lambda, clicks and boxes (on a
large photo answered with a preview first), atomic
saves whose seeds (after a click, with the mask it corrects) replay through
`flowcut segment` to the identical mask, a
clear error when the port is taken, a clean stop on Ctrl-C.

    test_ui_http.py FLOWCUT"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from uitest import Server, big_photo, mask_png_bits, png_tool

FLOWCUT = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
EX = os.path.join(HERE, "..", "..", "examples")
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def main():
    tmp = tempfile.mkdtemp(prefix="flowcut-ui-")
    try:
        photo = os.path.join(tmp, "coffee.png")
        shutil.copy(os.path.join(EX, "coffee.png"), photo)
        out = subprocess.run([FLOWCUT, "ui", os.path.join(tmp, "none.png")], capture_output=True, text=True)
        if "no web UI" in out.stderr:
            print("skipped: this build has no web UI (libmicrohttpd missing)")
            return 77
        s = Server(FLOWCUT, photo, "--seeds", os.path.join(EX, "coffee-seeds.png"), "--engine", "cpu")
        try:
            run(s, tmp, photo)
        finally:
            code = s.stop()
        check(code == 0, "Ctrl-C: exit status %d" % code)
        err = s.proc.stderr.read()
        check("stopping (interrupt)" in err, "Ctrl-C message: %r" % err[-200:])
        left = [f for f in os.listdir(tmp) if "tmp" in f]
        check(not left, "temporary files left: %s" % left)
        # a session that starts without seeds asks for them
        s2 = Server(FLOWCUT, photo, "-q")
        try:
            st, body = s2.request("GET", "/api/state")
            js = json.loads(body)
            check(st == 200 and not js["have_mask"] and "foreground" in js["message"], "no seeds: %r" % js)
            st, body = s2.request("POST", "/api/save", b"mask")
            check(st == 409, "save without a mask: %d" % st)
            st, body = s2.request("POST", "/api/stroke", b"1 5 300 200 320 210")
            js = json.loads(body)  # a foreground stroke alone cuts: the border stands in for the background
            check(st == 200 and js["have_mask"] and js["foreground"] > 0, "one stroke: %r" % js)
            st, body = s2.request("POST", "/api/stroke", b"2 5 5 5 590 5")
            js = json.loads(body)
            check(st == 200 and js["have_mask"] and js["foreground"] > 0, "two strokes: %r" % js)
        finally:
            s2.stop(signal.SIGTERM)
        s4 = Server(FLOWCUT, photo, "--engine", "cpu", "-q")
        try:
            prompts(s4, tmp, photo)
        finally:
            s4.stop(signal.SIGTERM)
        # --clicks and --box on the command line: the page opens on their cut, as `segment` gives it
        s5 = Server(FLOWCUT, photo, "--engine", "cpu", "-q", "--clicks", "300,200 -20,20", "--box", "10,5,580,390")
        try:
            js, m5 = settled(s5)
            check(js["prompts"] == [["box", 10, 5, 580, 390], [300, 200, 1, 10], [20, 20, 2, 10]] and js["can_undo"],
                  "--clicks/--box listed: %r" % js)
            both = os.path.join(tmp, "cli-prompts.png")
            r = subprocess.run([FLOWCUT, "segment", photo, "--clicks", "300,200 -20,20", "--box", "10,5,580,390",
                                "-o", both, "--engine", "cpu"], capture_output=True, text=True)
            check(r.returncode == 0 and mask_png_bits(both) == m5, "ui --clicks/--box != segment's: %s" % r.stderr)
        finally:
            s5.stop(signal.SIGTERM)
        r = subprocess.run([FLOWCUT, "ui", photo, "--clicks", "900,5", "--port", "0"], capture_output=True, text=True,
                           timeout=30)
        check(r.returncode == 1 and r.stderr.strip() == "flowcut ui: --clicks: pixel 900,5 lies outside the 600x400 photo",
              "ui --clicks outside: %d %r" % (r.returncode, r.stderr))
        s3 = Server(FLOWCUT, photo, "--seeds", os.path.join(EX, "coffee-seeds.png"), "--engine", "cpu", "-q")
        try:
            limits(s3)
        finally:
            s3.stop(signal.SIGTERM)
        hosts(photo)
        replays(tmp)
        previews(tmp)
    finally:
        shutil.rmtree(tmp)
    print("%d failures" % len(FAILS))
    return 1 if FAILS else 0


def replays(tmp):
    """Save's replay line, pasted into a shell, gives the saved mask: a photo
    whose path needs quoting, options in the forms getopt takes (--opt=value,
    an abbreviation), and options the replay must leave out (iterations)."""
    folder = os.path.join(tmp, "it's a folder")
    os.mkdir(folder)
    photo = os.path.join(folder, "my photo.png")
    shutil.copy(os.path.join(EX, "coffee.png"), photo)
    s = Server(FLOWCUT, photo, "--geodesic=10", "--conn", "4", "--iterations", "2", "--engine", "cpu", "-q")
    try:
        s.request("POST", "/api/click", b"300 200 1")
        settled(s)
        s.request("POST", "/api/click", b"60 350 2")
        _, bits = settled(s)
        st, body = s.request("POST", "/api/save", b"mask seeds")
        line = json.loads(body).get("replay", "") if st == 200 else ""
        check("--geodesic=10" in line and "--conn 4" in line and "--iterations" not in line,
              "the replay line's options: %r" % line)
        os.remove(os.path.splitext(photo)[0] + ".mask.png")
        env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(FLOWCUT)) + os.pathsep + os.environ.get("PATH", ""))
        r = subprocess.run(["bash", "-c", line or "false"], cwd=tmp, capture_output=True, text=True, env=env)
        check(r.returncode == 0 and mask_png_bits(os.path.splitext(photo)[0] + ".mask.png") == bits,
              "the replay of %r: %s" % (line, r.stderr))
        # seeds alone: the line does not overwrite a mask this save did not write
        st, body = s.request("POST", "/api/save", b"seeds")
        check(st == 200 and not json.loads(body).get("replay", "").endswith(" -f"),
              "a seeds-only save's replay forces its way: %r" % body)
    finally:
        s.stop(signal.SIGTERM)


def run(s, tmp, photo):
    # the token: required everywhere, wrong ones refused, the query form works
    for path in ("/", "/api/state", "/photo.png", "/api/mask"):
        st, _ = s.request("GET", path, token=False)
        check(st == 403, "no token %s: %d" % (path, st))
        st, _ = s.request("GET", path, token="0" * 32)
        check(st == 403, "wrong token %s: %d" % (path, st))
    st, page = s.request("GET", "/?token=" + s.token, token=False)
    check(st == 200 and b"<canvas" in page, "page with the query token: %d" % st)
    st, png = s.request("GET", "/photo.png")
    check(st == 200 and png[:8] == b"\x89PNG\r\n\x1a\n", "photo.png")
    # nothing from the file system, unknown paths 404, wrong methods 405
    for path in ("/../../etc/passwd", "/etc/passwd", "/index.html/..", "/api", "/coffee.png", "/ui/index.html"):
        st, _ = s.request("GET", path)
        check(st == 404, "path %s: %d" % (path, st))
    st, _ = s.request("PUT", "/api/stroke", b"1 1 1 1")
    check(st == 405, "PUT: %d" % st)
    st, _ = s.request("POST", "/api/state", b"")
    check(st == 405, "POST state: %d" % st)
    st, _ = s.request("GET", "/api/stroke")
    check(st == 405, "GET stroke: %d" % st)
    # the starting seeds were cut before the page asked
    st, body = s.request("GET", "/api/state")
    js = json.loads(body)
    check(st == 200 and js["have_mask"] and js["width"] == 600 and js["height"] == 400, "state: %r" % js)
    v0 = js["version"]
    # bad requests: 4xx, and the server keeps answering
    for body in (b"", b"1", b"1 5 10", b"3 5 10 10", b"1 -2 10 10", b"1 5 10 nan", b"1 5 x y",
                 b"1 5 10 10 20", b"1 5 1e300 5", b"1 5 10 10\x00 20 20"):
        st, _ = s.request("POST", "/api/stroke", body)
        check(st == 400, "bad stroke %r: %d" % (body, st))
    for body in (b"", b"abc", b"-3", b"1e9", b"5 6"):
        st, _ = s.request("POST", "/api/lambda", body)
        check(st == 400, "bad lambda %r: %d" % (body, st))
    st, _ = s.request("POST", "/api/save", b"passwd")
    check(st == 400, "bad save: %d" % st)
    st, _ = s.request("POST", "/api/stroke", b"1 5 " + b"10 10 " * 300000)  # 3.6 MB
    check(st == 413, "huge body: %d" % st)
    st, _ = s.request("GET", "/api/state", headers={"X-Long": "a" * 200000})
    check(st >= 400 and st < 500, "huge header: %d" % st)
    st, body = s.request("GET", "/api/state")
    check(st == 200 and json.loads(body)["version"] == v0, "still running, nothing changed")
    # a stroke re-cuts warm; undo and redo restore the seeds and the mask
    st, m0 = s.request("GET", "/api/mask")
    check(len(m0) == (600 * 400 + 7) // 8, "mask bits: %d bytes" % len(m0))
    st, body = s.request("POST", "/api/stroke", b"1 6 560 60 580 200 590 300")
    js = json.loads(body)
    check(st == 200 and js["version"] == v0 + 1 and js["can_undo"] and js["refine"],
          "stroke (quick, models kept): %r" % js)
    st, body = s.request("POST", "/api/refine", b"")
    js = json.loads(body)
    check(st == 200 and not js["refine"] and js["version"] == v0 + 2, "refine: %r" % js)
    st, m1 = s.request("GET", "/api/mask")
    check(m1 != m0, "the stroke changed the mask")
    st, body = s.request("POST", "/api/undo", b"")
    js = json.loads(body)
    check(st == 200 and js["can_redo"], "undo: %r" % js)
    s.request("POST", "/api/refine", b"")
    st, m2 = s.request("GET", "/api/mask")
    check(m2 == m0, "undo restores the mask")
    st, body = s.request("POST", "/api/redo", b"")
    s.request("POST", "/api/refine", b"")
    st, m3 = s.request("GET", "/api/mask")
    check(m3 == m1, "redo restores the stroke's mask")
    st, body = s.request("POST", "/api/lambda", b"90")
    js = json.loads(body)
    check(st == 200 and js["lambda"] == 90, "lambda: %r" % js)
    st, seeds = s.request("GET", "/api/seeds")
    check(len(seeds) == 600 * 400 and set(seeds) <= {0, 1, 2}, "seeds bytes")
    # save: mask, cut-out and seeds beside the photo, atomically
    st, body = s.request("POST", "/api/save", b"mask cutout seeds")
    check(st == 200, "save: %d %r" % (st, body))
    line = json.loads(body).get("replay", "")
    check(" --lambda 90 " in line and " --engine cpu" in line and "--seeds" in line,
          "the replay line carries lambda and the ui's options: %r" % line)
    saved = json.loads(body)["saved"]
    stem = os.path.splitext(photo)[0]
    check(saved == [stem + ".mask.png", stem + ".cutout.png", stem + ".seeds.png"], "saved paths %r" % saved)
    st, bits = s.request("GET", "/api/mask")
    check(mask_png_bits(stem + ".mask.png") == bits, "saved mask is the served mask")
    check(png_tool.read(stem + ".cutout.png")[2] == 4, "cut-out is RGBA")
    # replay: flowcut segment with the saved seeds gives the identical mask
    # (the page's session runs segment's energy)
    replay = os.path.join(tmp, "replay.png")
    r = subprocess.run([FLOWCUT, "segment", photo, "--seeds", stem + ".seeds.png", "--lambda", "90",
                        "-o", replay,
                        "--engine", "cpu"], capture_output=True, text=True)
    check(r.returncode == 0, "replay: %s" % r.stderr)
    check(os.path.exists(replay) and mask_png_bits(replay) == bits, "replayed mask differs from the session's")
    # the port is taken: a clear error, exit 1
    r = subprocess.run([FLOWCUT, "ui", photo, "--port", str(s.port)], capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "already in use" in r.stderr, "port taken: %d %r" % (r.returncode, r.stderr))
    r = subprocess.run([FLOWCUT, "ui", photo, "--host", "not-an-address", "--port", "0"], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 2 and "not an IP address" in r.stderr and "warning" not in r.stderr,
          "bad host: %r" % r.stderr)
    r = subprocess.run([FLOWCUT, "ui", os.path.join(tmp, "none.png")], capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "none.png" in r.stderr, "missing photo: %r" % r.stderr)
    r = subprocess.run([FLOWCUT, "ui"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2, "no photo: usage error %d" % r.returncode)


def bit(bits, x, y, w=600):
    i = y * w + x
    return (bits[i >> 3] >> (i & 7)) & 1


def settled(s):
    """The state and the mask once the page's refine has run (what `flowcut segment` gives)."""
    st, body = s.request("POST", "/api/refine", b"")
    st2, bits = s.request("GET", "/api/mask")
    check(st == 200 and st2 == 200, "refine and mask: %d %d %r" % (st, st2, body[:200]))
    return json.loads(body) if st == 200 else {}, bits


def prompts(s, tmp, photo):
    """Clicks and boxes: each one undo step, painted as `flowcut segment --clicks/--box` paints them."""
    W, H = 600, 400
    # bad bodies: 400 with one line saying what is wrong; nothing changes
    bad = {"/api/click": (b"", b"300", b"300 200", b"300 200 1 4", b"300 200 3", b"300 200 0", b"-1 5 1",
                          b"600 5 1", b"5 400 2", b"3.5 2 1", b"1e2 5 1", b"x 5 1", b"300 200 1\x00",
                          b"99999999999999999999 5 1"),
           "/api/box": (b"", b"1 2 3", b"0 0 0 10", b"0 0 10 -1", b"10 10 591 5", b"0 0 600 401",
                        b"-1 0 5 5", b"0 0 5 5 5", b"1,2,3,4", b"0 0 10.5 10")}
    v0 = json.loads(s.request("GET", "/api/state")[1])["version"]
    for path, bodies in bad.items():
        for body in bodies:
            st, msg = s.request("POST", path, body)
            line = msg.decode("utf-8", "replace")
            check(st == 400 and line and "\n" not in line.strip() and len(line) < 200,
                  "bad %s %r: %d %r" % (path, body, st, line))
    st, msg = s.request("POST", "/api/click", b"600 5 1")
    check(b"outside the 600x400 photo" in msg, "click outside: %r" % msg)
    st, msg = s.request("POST", "/api/click", b"5 5 3")
    check(b"LABEL must be 1" in msg, "click label: %r" % msg)
    st, msg = s.request("POST", "/api/box", b"10 10 591 5")
    check(b"inside the 600x400 photo" in msg, "box outside: %r" % msg)
    st, msg = s.request("GET", "/api/click")
    check(st == 405, "GET click: %d" % st)
    js = json.loads(s.request("GET", "/api/state")[1])
    check(js["version"] == v0 and js["prompts"] == [] and not js["can_undo"], "bad prompts changed nothing: %r" % js)
    # one foreground click alone gives a mask; the clicked pixel is foreground
    st, body = s.request("POST", "/api/click", b"300 200 1")
    js = json.loads(body)
    check(st == 200 and js["have_mask"] and js["foreground"] > 0 and js["can_undo"], "click: %r" % js)
    check(js["prompts"] == [[300, 200, 1, 10]] and js["click_radius"] == 10, "click listed: %r" % js)
    js, m1 = settled(s)
    check(bit(m1, 300, 200) == 1, "the clicked pixel is not foreground")
    # the same as `flowcut segment --clicks`
    one = os.path.join(tmp, "one-click.png")
    r = subprocess.run([FLOWCUT, "segment", photo, "--clicks", "300,200", "-o", one, "--engine", "cpu"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and mask_png_bits(one) == m1, "click != segment --clicks 300,200: %s" % r.stderr)
    # a background click on a foreground pixel away from the first click: that pixel turns background
    rad = js["click_radius"]
    far = [(x, y) for y in range(0, H, 7) for x in range(0, W, 7)
           if bit(m1, x, y) and (x - 300) ** 2 + (y - 200) ** 2 > (4 * rad) ** 2]
    check(far, "no foreground pixel away from the click")
    nx, ny = far[len(far) // 2] if far else (100, 100)
    st, body = s.request("POST", "/api/click", ("%d %d 2" % (nx, ny)).encode())
    js = json.loads(body)
    # its disc: no farther than the nearest background pixel of the mask it corrects
    nr = js["prompts"][-1][3] if len(js["prompts"]) == 2 else 0
    near_bg = min(((x - nx) ** 2 + (y - ny) ** 2 for y in range(H) for x in range(W) if not bit(m1, x, y)),
                  default=10 ** 9) ** 0.5
    check(nr == max(2, min(rad, int(near_bg))), "negative click's disc %d, nearest background %.2f" % (nr, near_bg))
    check(st == 200 and js["prompts"] == [[300, 200, 1, rad], [nx, ny, 2, nr]], "negative click: %r" % js)
    js, m2 = settled(s)
    check(bit(m2, nx, ny) == 0 and bit(m2, 300, 200) == 1, "negative click at %d,%d: pixel still foreground" % (nx, ny))
    check(m2 != m1, "the negative click changed nothing")
    # undo takes the negative click back: the previous mask, the click no longer listed; redo restores it
    st, body = s.request("POST", "/api/undo", b"")
    js = json.loads(body)
    check(st == 200 and js["prompts"] == [[300, 200, 1, rad]] and js["can_redo"], "undo click: %r" % js)
    js, m3 = settled(s)
    check(m3 == m1, "undo of a click did not restore the previous mask")
    st, body = s.request("POST", "/api/redo", b"")
    check(json.loads(body)["prompts"] == [[300, 200, 1, rad], [nx, ny, 2, nr]], "redo click: %r" % body[:300])
    js, m4 = settled(s)
    check(m4 == m2, "redo of a click did not restore its mask")
    # a box: everything outside it is background (hard seeds)
    bx, by, bw, bh = 60, 10, 440, 340
    st, body = s.request("POST", "/api/box", ("%d %d %d %d" % (bx, by, bw, bh)).encode())
    js = json.loads(body)
    check(st == 200 and js["have_mask"] and js["prompts"][-1] == ["box", bx, by, bw, bh], "box: %r" % js)
    js, m5 = settled(s)
    st, seeds = s.request("GET", "/api/seeds")
    outside = [(x, y) for y in range(H) for x in range(W) if not (bx <= x < bx + bw and by <= y < by + bh)]
    check(all(seeds[y * W + x] == 2 for x, y in outside), "box: a seed outside it is not background")
    check(not any(bit(m5, x, y) for x, y in outside), "box: foreground outside it")
    check(bit(m5, 300, 200) == 1, "box: the clicked pixel inside it is no longer foreground")
    # a click right after a box: the redo branch (none here) ends, undo goes back one prompt at a time
    st, body = s.request("POST", "/api/undo", b"")
    check(json.loads(body)["prompts"] == [[300, 200, 1, rad], [nx, ny, 2, nr]], "undo box: %r" % body[:300])
    js, m6 = settled(s)
    check(m6 == m2, "undo of a box did not restore the previous mask")
    st, body = s.request("POST", "/api/redo", b"")
    js, m7 = settled(s)
    check(m7 == m5 and js["prompts"][-1] == ["box", bx, by, bw, bh], "redo box: %r" % js)
    # a box alone (no foreground seed) segments its inside as `flowcut segment --box` does
    for _ in range(3):
        s.request("POST", "/api/undo", b"")
    js, _ = settled(s)
    check(js["prompts"] == [] and not js["can_undo"], "undone to the start: %r" % js)
    # no seed left: no mask, and no refine for the page to ask for (it asks while the state says so)
    check(not js["have_mask"] and not js["refine"] and "foreground" in js["message"], "no seed left: %r" % js)
    st, body = s.request("POST", "/api/box", ("%d %d %d %d" % (bx, by, bw, bh)).encode())
    js, mb = settled(s)
    check(js["have_mask"] and js["prompts"] == [["box", bx, by, bw, bh]], "box alone: %r" % js)
    boxed = os.path.join(tmp, "box.png")
    r = subprocess.run([FLOWCUT, "segment", photo, "--box", "%d,%d,%d,%d" % (bx, by, bw, bh), "-o", boxed,
                        "--engine", "cpu"], capture_output=True, text=True)
    check(r.returncode == 0 and mask_png_bits(boxed) == mb, "box alone != segment --box: %s" % r.stderr)
    # clicks on top of the box refine the box's cut; the seeds saved, with the
    # box the save answers, replay to the identical mask
    s.request("POST", "/api/click", b"300 200 1")
    s.request("POST", "/api/click", ("%d %d 2" % (nx, ny)).encode())
    js, bits = settled(s)
    check(len(js["prompts"]) == 3 and bit(bits, 300, 200) == 1, "box and clicks: %r" % js)
    st, body = s.request("POST", "/api/save", b"mask seeds")
    check(st == 200 and json.loads(body).get("box") == [bx, by, bw, bh], "save: %d %r" % (st, body))
    stem = os.path.splitext(photo)[0]
    replay = os.path.join(tmp, "replay-prompts.png")
    r = subprocess.run([FLOWCUT, "segment", photo, "--seeds", stem + ".seeds.png", "--box", "%d,%d,%d,%d" % (bx, by, bw, bh),
                        "-o", replay, "--engine", "cpu"], capture_output=True, text=True)
    check(r.returncode == 0 and mask_png_bits(replay) == bits, "replayed clicks and box differ: %s" % r.stderr)
    # without a box the save names none
    for _ in range(3):
        s.request("POST", "/api/undo", b"")
    js, _ = settled(s)
    check(js["prompts"] == [], "undone to the start again: %r" % js)
    st, body = s.request("POST", "/api/save", b"seeds")
    check(st == 200 and "box" not in json.loads(body), "save without a box: %d %r" % (st, body))
    check(mask_png_bits(stem + ".mask.png") == bits, "saved mask is not the served mask")
    # clicks alone: the second corrects the first one's mask; the save names
    # that mask and the click, and the seeds replay with them to the same mask
    s.request("POST", "/api/click", b"300 200 1")
    settled(s)
    s.request("POST", "/api/click", ("%d %d 2" % (nx, ny)).encode())
    js, bits = settled(s)
    st, body = s.request("POST", "/api/save", b"mask seeds")
    saved = json.loads(body) if st == 200 else {}
    check(saved.get("click") == "-%d,%d" % (nx, ny) and saved.get("previous") == stem + ".previous.png",
          "save after clicks: %d %r" % (st, body))
    replay = os.path.join(tmp, "replay-clicks.png")
    r = subprocess.run([FLOWCUT, "segment", photo, "--seeds", stem + ".seeds.png", "--clicks", saved.get("click", ""),
                        "--previous", stem + ".previous.png", "-o", replay, "--engine", "cpu"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and mask_png_bits(replay) == bits, "replayed clicks differ: %s" % r.stderr)
    # the save's own replay line, run as a user pastes it, writes the same mask
    os.remove(stem + ".mask.png")
    # the flowcut under test first on PATH, as the line names the command alone
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(FLOWCUT)) + os.pathsep + os.environ.get("PATH", ""))
    r = subprocess.run(["bash", "-c", saved.get("replay", "false")], cwd=tmp, capture_output=True, text=True, env=env)
    check(r.returncode == 0 and mask_png_bits(stem + ".mask.png") == bits,
          "the save's replay line %r: %s" % (saved.get("replay"), r.stderr))
    for f in (stem + ".seeds.png", stem + ".mask.png", stem + ".previous.png"):
        os.remove(f)


def previews(tmp):
    """A photo of 0.8 Mpx or more: a click or a box is answered with a
    preview at once and its cut waits for the next request, which makes it
    first, so the session goes through the same cuts as without previews."""
    big = os.path.join(tmp, "big.png")
    W, H = big_photo(big, EX)

    def segment(*args):
        out = os.path.join(tmp, "big-mask.png")
        r = subprocess.run([FLOWCUT, "segment", big, "-o", out, "-f", "--engine", "cpu"] + list(args),
                           capture_output=True, text=True)
        return mask_png_bits(out) if r.returncode == 0 else r.stderr

    fg, bg = b"750 500 1", b"50 50 2"
    a = Server(FLOWCUT, big, "--engine", "cpu", "-q")
    try:
        st, body = a.request("POST", "/api/click", fg)
        js = json.loads(body)
        check(st == 200 and js["preview"] and js["refine"] and js["have_mask"] and js["foreground"] > 0,
              "a click's preview: %r" % js)
        pm = a.request("GET", "/api/mask")[1]
        check(bit(pm, 750, 500, W) == 1, "the clicked pixel is not foreground in the preview")
        # a refused request still makes the cut the preview put off
        st, body = a.request("POST", "/api/stroke", b"1 5")
        js = json.loads(a.request("GET", "/api/state")[1])
        check(st == 400 and not js["preview"] and not js["refine"], "a refused stroke after a preview: %d %r" % (st, js))
        m1 = a.request("GET", "/api/mask")[1]
        check(m1 == segment("--clicks", "750,500"), "the cut after a preview != segment --clicks 750,500")
        differ = sum(bin(x ^ y).count("1") for x, y in zip(pm, m1))
        check(differ < W * H // 10, "the preview differs from the cut in %d pixels" % differ)  # an empty or full one: 40%, 60%
        st, body = a.request("POST", "/api/click", bg)
        check(st == 200 and json.loads(body)["preview"], "the second click's preview: %d %r" % (st, body))
        js, a2 = settled(a)
        check(not js.get("preview", True) and bit(a2, 50, 50, W) == 0, "the second click's cut: %r" % js)
    finally:
        a.stop(signal.SIGTERM)
    b = Server(FLOWCUT, big, "--engine", "cpu", "-q")
    try:
        b.request("POST", "/api/click", fg)
        st, body = b.request("POST", "/api/click", bg)  # before the first one's cut: this request makes it
        check(st == 200 and json.loads(body)["preview"], "the second click's preview: %d %r" % (st, body))
        # a save while the preview shows writes the exact mask, the cut's
        stem = os.path.splitext(big)[0]
        st, body = b.request("POST", "/api/save", b"mask seeds")
        saved = json.loads(body) if st == 200 else {}
        check(st == 200 and os.path.exists(stem + ".mask.png"), "save while a preview shows: %d %r" % (st, body))
        js, b2 = settled(b)
        check(b2 == a2, "two clicks without a refine between them != with one")
        check(os.path.exists(stem + ".mask.png") and mask_png_bits(stem + ".mask.png") == b2,
              "the mask saved while a preview showed is not the cut's")
        check(b2 == segment("--seeds", stem + ".seeds.png", "--clicks", saved.get("click", "?"),
                            "--previous", stem + ".previous.png"), "replayed clicks after previews differ: %r" % saved)
        # a box, then undo while its preview stands: its cut first, then the undo
        st, body = b.request("POST", "/api/box", b"25 12 1450 975")
        js = json.loads(body)
        check(st == 200 and js["preview"] and js["prompts"][-1] == ["box", 25, 12, 1450, 975], "a box's preview: %r" % js)
        st, body = b.request("POST", "/api/undo", b"")
        js = json.loads(body)
        check(st == 200 and not js["preview"] and len(js["prompts"]) == 2, "undo of a previewed box: %r" % js)
        js, b3 = settled(b)
        check(b3 == b2, "undo of a previewed box did not give back the mask before it")
    finally:
        b.stop(signal.SIGTERM)


def raw(port, data=b"", host="127.0.0.1"):
    c = socket.create_connection((host, port), timeout=10)
    if data:
        c.sendall(data)
    return c


def read_status(c, timeout):
    """The status of the response on socket c, or None when none came within timeout."""
    c.settimeout(timeout)
    data = b""
    try:
        while b"\r\n" not in data:
            more = c.recv(4096)
            if not more:
                break
            data += more
    except (socket.timeout, ConnectionResetError):
        pass
    m = re.match(rb"HTTP/1\.[01] (\d+)", data)
    return int(m.group(1)) if m else None


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def limits(s):
    """One client can neither stall the server nor swell it, nor lock others out."""
    hdr = "Host: x\r\nX-Flowcut-Token: %s\r\n" % s.token
    idle = raw(s.port)  # says nothing: the server must drop it (idle timeout)
    t_idle = time.time()
    # a stroke of 4,096 points with the largest brush is cheap or refused, fast
    pts = " ".join("%d %d" % ((k * 37) % 600, (k * 53) % 400) for k in range(4096))
    t = time.time()
    st, body = s.request("POST", "/api/stroke", ("1 1000 " + pts).encode())
    dt = time.time() - t
    check(st in (200, 413) and dt < 3.0, "huge stroke: %d in %.1f s %r" % (st, dt, body[:100]))
    if st == 200:
        s.request("POST", "/api/undo", b"")
    # a body announced too large is refused before it is sent, and so is one without the token
    c = raw(s.port, ("POST /api/stroke HTTP/1.1\r\n%sContent-Length: 100000000\r\n\r\n" % hdr).encode())
    st = read_status(c, 5)
    c.close()
    check(st == 413, "announced huge body refused early: %r" % st)
    c = raw(s.port, b"POST /api/stroke HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
    st = read_status(c, 5)
    c.close()
    check(st == 403, "no token refused before the body: %r" % st)
    # 100 idle connections (some half a request) do not lock the page out
    socks = [raw(s.port, b"GET /api/state HTTP/1.1\r\n" if k % 2 else b"") for k in range(100)]
    time.sleep(0.5)
    t = time.time()
    try:
        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=5)
        c.request("GET", "/api/state", headers={"X-Flowcut-Token": s.token})
        r = c.getresponse()
        st = r.status
        r.read()
        c.close()
    except (OSError, http.client.HTTPException) as e:
        st = repr(e)
    check(st == 200 and time.time() - t < 5, "request beside 100 idle connections: %r" % (st,))
    for c in socks:
        c.close()
    # the undo history is bounded in bytes: 100 strokes over the whole photo barely grow the server
    def stroke(k):
        return s.request("POST", "/api/stroke", ("%d 800 300 200" % (1 + k % 2)).encode())[0]
    for k in range(4):
        stroke(k)
    before = rss_kb(s.proc.pid)
    codes = set(stroke(k) for k in range(100))
    grew = (rss_kb(s.proc.pid) - before) / 1024.0
    check(codes == {200} and grew < 16, "100 whole-photo strokes: codes %s, server grew %.1f MB" % (codes, grew))
    # legitimate requests still work
    st, body = s.request("POST", "/api/undo", b"")
    check(st == 200 and json.loads(body)["can_undo"], "undo after many strokes: %d %r" % (st, body[:200]))
    # the idle connection has been dropped by now (or shortly)
    st = read_status(idle, max(1.0, 20 - (time.time() - t_idle)))
    try:
        idle.settimeout(1)
        gone = idle.recv(1) == b""
    except (socket.timeout, OSError) as e:
        gone = not isinstance(e, socket.timeout)
    idle.close()
    check(gone, "idle connection still open after %.0f s" % (time.time() - t_idle))


def hosts(photo):
    """--host ::1 serves over IPv6 loopback without the exposure warning."""
    p = subprocess.Popen([FLOWCUT, "ui", photo, "--host", "::1", "--port", "0", "-q"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        m = re.search(r"http://\[::1\]:(\d+)/\?token=([0-9a-f]{32})", line)
        if not m:
            p.wait(timeout=30)
            err = p.stderr.read()
            # a machine without IPv6: one clear line, no warning first
            check(p.returncode == 1 and "IPv6" in err and "warning" not in err and err.count("\n") == 1,
                  "--host ::1: %r %r" % (line, err))
            return
        c = http.client.HTTPConnection("::1", int(m.group(1)), timeout=30)
        c.request("GET", "/api/state", headers={"X-Flowcut-Token": m.group(2)})
        r = c.getresponse()
        check(r.status == 200 and json.loads(r.read())["width"] == 600, "state over IPv6: %d" % r.status)
        c.close()
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
    err = p.stderr.read()
    check("warning" not in err, "--host ::1 warns: %r" % err)


if __name__ == "__main__":
    sys.exit(main())
