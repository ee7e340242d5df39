#!/usr/bin/python3
"""A box alone: `flowcut segment IMAGE --box X,Y,W,H` against OpenCV's
cv2.grabCut initialised with the same rectangle (5 iterations), on the
seg-dev set and the Weizmann horses. The box is the click robot's: the
ground truth's bounding box grown by 5% of its size on each side
(clicker.grown_box). The two run one call at a time, alternating photo by
photo, so both see the same machine. Reports mean IoU (void pixels
ignored), the median and mean seconds of one call (flowcut: the whole
process; grabCut: the call alone) and grabCut's mean over flowcut's.

usage: box_compare.py FLOWCUT [--set seg-dev|weizmann|both] [--data DIR] [--limit N]
                      [--python DIR]
--data DIR reads seg-dev/ and weizmann/ from DIR instead of beside the
checkout. --python DIR also times flowcut.segment(rgb, box=...) from the
Python module in DIR (a build's python/ folder) on the decoded photo, in
this process: the same work as the grabCut call (no process start, no
decoding, no PNG written). Needs python3-opencv and python3-scipy
(Debian); benchmark only.
"""
import os, subprocess, sys, tempfile, time

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
    flowcut, args = sys.argv[1], sys.argv[2:]
    opt = lambda k, d: args[args.index(k) + 1] if k in args else d
    if "--data" in args:
        seg_eval.DATA = os.path.join(opt("--data", ""), "seg-dev")
        seg_eval.WEIZMANN = os.path.join(opt("--data", ""), "weizmann")
    limit = int(opt("--limit", "0")) or None
    which = opt("--set", "both")
    fc_module = None
    if "--python" in args:
        sys.path.insert(0, opt("--python", ""))
        import flowcut as fc_module  # noqa: E402
    tmp = tempfile.mkdtemp(prefix="box_compare-")
    print("| set | method | images | box IoU | median s/box | mean s/box |")
    print("|---|---|---|---|---|---|")
    for name in ["seg-dev", "weizmann"] if which == "both" else [which]:
        if not os.path.isdir(seg_eval.DATA if name == "seg-dev" else seg_eval.WEIZMANN):
            print(f"{name}: skipped: data set not found")
            continue
        ft, gt, fi, gi, pt, pi = [], [], [], [], [], []
        for _, image, label_path, threshold in seg_eval.load_set(name)[:limit]:
            label = seg_eval.read_label(label_path, threshold)
            box = clicker.grown_box(label)
            out = os.path.join(tmp, "mask.png")
            t0 = time.perf_counter()
            r = subprocess.run([flowcut, "segment", image, "--box", "%d,%d,%d,%d" % box, "-o", out, "-f", "-q"],
                               capture_output=True)
            ft.append(time.perf_counter() - t0)
            # a refused call (a box over the whole photo leaves no background) scores 0
            fi.append(0.0 if r.returncode else clicker.iou(cv2.imread(out, cv2.IMREAD_GRAYSCALE) > 127, label))
            if fc_module is not None:
                rgb = np.ascontiguousarray(cv2.cvtColor(cv2.imread(image, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB))
                t0 = time.perf_counter()
                try:
                    m = fc_module.segment(rgb, box=box)
                except fc_module.FlowcutError:
                    m = None
                pt.append(time.perf_counter() - t0)
                pi.append(0.0 if m is None else clicker.iou(m > 127, label))
            mask, seconds, _ = clicker.grabcut_box(cv2.imread(image, cv2.IMREAD_COLOR), box)
            gt.append(seconds)
            gi.append(0.0 if mask is None else clicker.iou(mask, label))
        rows = [("flowcut --box (whole process)", fi, ft)]
        if fc_module is not None:
            rows.append(("flowcut.segment(rgb, box=...) (in process)", pi, pt))
        for method, ious, times in rows + [("cv2.grabCut (rect, 5 iterations)", gi, gt)]:
            print("| %s | %s | %d | %.4f | %.3f | %.3f |" % (name, method, len(ious), np.mean(ious),
                                                        np.median(times), np.mean(times)))
        print("| %s | grabCut's mean time / flowcut's | | | | %.2f× |" % (name, np.mean(gt) / np.mean(ft)), flush=True)
        if fc_module is not None:
            print("| %s | grabCut's mean time / flowcut.segment's | | | | %.2f× |" % (name, np.mean(gt) / np.mean(pt)),
                  flush=True)


if __name__ == "__main__":
    main()
