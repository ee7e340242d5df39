"""Helpers for the `flowcut ui` tests: start the server, talk HTTP."""
import http.client
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import png_tool  # noqa: E402  (the CLI tests' standard-library PNG reader)


class Server:
    """`flowcut ui ARGS` in the background; .port, .token, .url."""

    def __init__(self, flowcut, *args):
        self.proc = subprocess.Popen([flowcut, "ui", "--port", "0", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32})", line)
        if not m:
            self.proc.kill()
            raise RuntimeError("no URL printed: %r %r" % (line, self.proc.stderr.read()))
        self.port, self.token = int(m.group(1)), m.group(2)
        self.url = "http://127.0.0.1:%d/?token=%s" % (self.port, self.token)

    def request(self, method, path, body=None, token=True, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        h = dict(headers or {})
        if token is True:
            h["X-Flowcut-Token"] = self.token
        elif token:
            h["X-Flowcut-Token"] = token
        try:
            c.request(method, path, body=body, headers=h)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before the body was all sent (413, 403): the answer is waiting
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, data

    def stop(self, sig=signal.SIGINT):
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return -1


def mask_png_bits(path):
    """A saved mask PNG as the page's bit layout (one bit per pixel, LSB first)."""
    w, h, ch, samples = png_tool.read(path)
    bits = bytearray((w * h + 7) // 8)
    for i in range(w * h):
        if samples[i * ch]:
            bits[i >> 3] |= 1 << (i & 7)
    return bytes(bits)


def big_photo(path, examples):
    """The sample photo at 2.5 times its size (1500 x 1000, nearest
    neighbour): a photo large enough for the page's previews. Returns
    (width, height)."""
    w, h, ch, px = png_tool.read(os.path.join(examples, "coffee.png"))
    W, H = w * 5 // 2, h * 5 // 2
    cols = [x * 2 // 5 * ch for x in range(W)]
    rows = []
    for y in range(H):
        src = px[(y * 2 // 5) * w * ch:(y * 2 // 5 + 1) * w * ch]
        rows.append(bytes(src[c + k] for c in cols for k in range(ch)))
    png_tool.write(path, W, H, ch, b"".join(rows))
    return W, H


def wait_for(pred, timeout=30.0, step=0.05):
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return None
