#!/usr/bin/python3
"""How close a session's preview (Session.preview, what `flowcut ui`
shows first on a large photo) is to the exact cut that follows: seg-dev
photos upscaled (bicubic; the ground truth nearest), the click robot's
first click (the deepest point of the object) and its second (the
deepest error of the first exact mask), each previewed, then cut. Reports
per click the mean and the worst IoU of preview and exact mask, and the
median seconds of each call.

usage: preview_fidelity.py PYTHON_DIR [--data DIR] [--every K] [--count N] [--scale S]
PYTHON_DIR is a build's python/ folder. Defaults: every 12th photo, 9 of
them, 3 times their size. Needs python3-opencv (Debian); benchmark only.
"""
import os, statistics, sys, time

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import clicker  # noqa: E402
import seg_eval  # noqa: E402


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    args = sys.argv[2:]
    opt = lambda k, d: args[args.index(k) + 1] if k in args else d
    sys.path.insert(0, sys.argv[1])
    import flowcut  # noqa: E402
    if "--data" in args:
        seg_eval.DATA = os.path.join(opt("--data", ""), "seg-dev")
    if not os.path.isdir(seg_eval.DATA):
        print("skipped: seg-dev not found")
        return 0
    every, count, scale = int(opt("--every", "12")), int(opt("--count", "9")), float(opt("--scale", "3"))
    rows = {1: [], 2: []}  # click -> (IoU, preview s, cut s)
    for _, image, label_path, threshold in seg_eval.load_set("seg-dev")[::every][:count]:
        rgb = cv2.cvtColor(cv2.imread(image), cv2.COLOR_BGR2RGB)
        rgb = np.ascontiguousarray(cv2.resize(rgb, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC))
        label = cv2.resize(seg_eval.read_label(label_path, threshold), None, fx=scale, fy=scale,
                           interpolation=cv2.INTER_NEAREST)
        robot = clicker.Clicker(label)
        pred = np.zeros(label.shape, bool)
        with flowcut.Session(rgb) as s:
            for k in (1, 2):
                x, y, positive = robot.next_click(pred)
                s.click(x, y, positive)
                s.commit()
                t0 = time.perf_counter()
                look = s.preview()
                t1 = time.perf_counter()
                s.cut()
                t2 = time.perf_counter()
                exact = s.mask
                both, either = ((look > 0) & (exact > 0)).sum(), ((look > 0) | (exact > 0)).sum()
                rows[k].append((both / either if either else 1.0, t1 - t0, t2 - t1))
                pred = exact > 0
    print("| click | photos | IoU preview / exact, mean | worst | preview s (median) | cut s (median) |")
    print("|---|---|---|---|---|---|")
    for k, r in rows.items():
        print("| %d | %d | %.3f | %.3f | %.3f | %.3f |" % (k, len(r), statistics.mean(v[0] for v in r),
                                                          min(v[0] for v in r), statistics.median(v[1] for v in r),
                                                          statistics.median(v[2] for v in r)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
