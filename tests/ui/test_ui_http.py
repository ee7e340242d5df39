"""HTTP tests of `flowcut ui`: the token, limits, bad requests (4xx while the
server keeps running), strokes/undo/redo/lambda, atomic saves whose seeds
replay through `flowcut segment` to the identical mask, a clear error when
the port is taken, a clean stop on Ctrl-C.

    test_ui_http.py FLOWCUT"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from uitest import Server, mask_png_bits, png_tool

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
            js = json.loads(body)
            check(st == 200 and "background" in js["message"], "one stroke: %r" % js)
            st, body = s2.request("POST", "/api/stroke", b"2 5 5 5 590 5")
            js = json.loads(body)
            check(st == 200 and js["have_mask"] and js["foreground"] > 0, "two strokes: %r" % js)
        finally:
            s2.stop(signal.SIGTERM)
    finally:
        shutil.rmtree(tmp)
    print("%d failures" % len(FAILS))
    return 1 if FAILS else 0


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
    check(st == 200 and js["warm"] and js["version"] == v0 + 1 and js["can_undo"] and js["refine"],
          "stroke (quick, warm, models kept): %r" % js)
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
    saved = json.loads(body)["saved"]
    stem = os.path.splitext(photo)[0]
    check(saved == [stem + ".mask.png", stem + ".cutout.png", stem + ".seeds.png"], "saved paths %r" % saved)
    st, bits = s.request("GET", "/api/mask")
    check(mask_png_bits(stem + ".mask.png") == bits, "saved mask is the served mask")
    check(png_tool.read(stem + ".cutout.png")[2] == 4, "cut-out is RGBA")
    # replay: flowcut segment with the saved seeds gives the identical mask
    # (the session runs without the geodesic prior, as flowcut ui does by default)
    replay = os.path.join(tmp, "replay.png")
    r = subprocess.run([FLOWCUT, "segment", photo, "--seeds", stem + ".seeds.png", "--lambda", "90", "--geodesic", "0",
                        "-o", replay,
                        "--engine", "cpu"], capture_output=True, text=True)
    check(r.returncode == 0, "replay: %s" % r.stderr)
    check(os.path.exists(replay) and mask_png_bits(replay) == bits, "replayed mask differs from the session's")
    # the port is taken: a clear error, exit 1
    r = subprocess.run([FLOWCUT, "ui", photo, "--port", str(s.port)], capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "already in use" in r.stderr, "port taken: %d %r" % (r.returncode, r.stderr))
    r = subprocess.run([FLOWCUT, "ui", photo, "--host", "not-an-address", "--port", "0"], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 1 and "not an IPv4 address" in r.stderr, "bad host: %r" % r.stderr)
    r = subprocess.run([FLOWCUT, "ui", os.path.join(tmp, "none.png")], capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "none.png" in r.stderr, "missing photo: %r" % r.stderr)
    r = subprocess.run([FLOWCUT, "ui"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2, "no photo: usage error %d" % r.returncode)


if __name__ == "__main__":
    sys.exit(main())
