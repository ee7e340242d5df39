#!/usr/bin/python3
"""Segmentation quality on ../shared/data/seg-dev: flowcut against OpenCV's
cv2.grabCut (mask initialisation, 5 iterations) on the same synthetic seeds.

Seeds are deterministic sparse strokes inside each ground-truth region,
eroded away from the boundary (the 128 void band is never seeded and never
scored). Reports mean IoU of the foreground, mean error rate and mean time
per image. Needs python3-opencv (Debian), benchmark only.

usage: seg_eval.py FLOWCUT [--configs all|default] [--limit N] [--no-grabcut]
"""
import os, subprocess, sys, tempfile, time, zlib
import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "shared", "data", "seg-dev")

def strokes(region, rng, count, width):
    """count polylines of 3 segments between random points of region."""
    out = np.zeros(region.shape, np.uint8)
    ys, xs = np.nonzero(region)
    if len(xs) == 0:
        return out
    for _ in range(count):
        pts = [(int(xs[i]), int(ys[i])) for i in rng.integers(0, len(xs), 4)]
        for a, b in zip(pts, pts[1:]):
            cv2.line(out, a, b, 1, width)
    return out & region

def make_seeds(label, name):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    h, w = label.shape
    r = max(3, int(0.03 * min(h, w)))
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    seeds = np.zeros(label.shape, np.uint8)
    for value, seed in ((255, 1), (0, 2)):
        region = (label == value).astype(np.uint8)
        er = cv2.erode(region, k)
        if er.sum() < 20:
            er = cv2.erode(region, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
        s = strokes(er, rng, 3, 3)
        # strokes may leave the eroded region only through the mask above
        seeds[s > 0] = seed
    return seeds

def score(mask, label):
    valid = label != 128
    gt = label == 255
    pred = mask > 127
    inter = np.logical_and(pred, gt)[valid].sum()
    union = np.logical_or(pred, gt)[valid].sum()
    iou = inter / union if union else 1.0
    err = (pred != gt)[valid].mean()
    return iou, err

def run_grabcut(img, seeds):
    mask = np.full(seeds.shape, cv2.GC_PR_BGD, np.uint8)
    # unknown pixels inside the seeds' foreground bounding box start as
    # probable foreground: GrabCut's usual rectangle prior
    ys, xs = np.nonzero(seeds == 1)
    mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1] = cv2.GC_PR_FGD
    mask[seeds == 1] = cv2.GC_FGD
    mask[seeds == 2] = cv2.GC_BGD
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    t0 = time.perf_counter()
    cv2.grabCut(img, mask, None, bgd, fgd, 5, cv2.GC_INIT_WITH_MASK)
    t = time.perf_counter() - t0
    return np.where((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD), 255, 0).astype(np.uint8), t

def main():
    flowcut = sys.argv[1]
    args = sys.argv[2:]
    limit = int(args[args.index("--limit") + 1]) if "--limit" in args else None
    sweep = "--configs" in args and args[args.index("--configs") + 1] == "all"
    configs = [("default", [])]
    if sweep:
        configs = [("lambda 50", ["--lambda", "50"]), ("lambda 100", ["--lambda", "100"]),
                   ("lambda 150", ["--lambda", "150"]), ("lambda 200", ["--lambda", "200"]),
                   ("lambda 300", ["--lambda", "300"]),
                   ("uniform-mix 0", ["--uniform-mix", "0"]),
                   ("uniform-mix 0.001", ["--uniform-mix", "0.001"]),
                   ("uniform-mix 0.003", ["--uniform-mix", "0.003"]),
                   ("uniform-mix 0.03", ["--uniform-mix", "0.03"]),
                   ("uniform-mix 0.1", ["--uniform-mix", "0.1"]),
                   ("hist", ["--model", "hist"]), ("4-conn", ["--connectivity", "4"]),
                   ("iterations 2", ["--iterations", "2"])]
    names = sorted(os.listdir(os.path.join(DATA, "images")))[:limit]
    tmp = tempfile.mkdtemp()
    rows = {c[0]: [] for c in configs}
    gc_rows = []
    # flowcut first, grabCut after: OpenCV's worker threads keep spinning for
    # a while after each grabCut call and slowed a flowcut run that followed
    # it by about 15% on a 2-core machine
    for name in names:
        label = cv2.imread(os.path.join(DATA, "labels", name), cv2.IMREAD_GRAYSCALE)
        seed_path = os.path.join(tmp, "seeds-" + name)
        cv2.imwrite(seed_path, make_seeds(label, name))
        for cname, cargs in configs:
            out = os.path.join(tmp, "mask-" + name)
            t0 = time.perf_counter()
            subprocess.run([flowcut, "segment", os.path.join(DATA, "images", name), "--seeds", seed_path,
                            "-o", out, "-f", "-q", "--engine", "cpu"] + cargs, check=True)
            t = time.perf_counter() - t0
            rows[cname].append(score(cv2.imread(out, cv2.IMREAD_GRAYSCALE), label) + (t,))
    for name in names if "--no-grabcut" not in args else []:
        img = cv2.imread(os.path.join(DATA, "images", name), cv2.IMREAD_COLOR)
        label = cv2.imread(os.path.join(DATA, "labels", name), cv2.IMREAD_GRAYSCALE)
        m, t = run_grabcut(img, make_seeds(label, name))
        gc_rows.append(score(m, label) + (t,))
    print(f"{len(names)} images of seg-dev, synthetic sparse strokes (3 per region, eroded 3% of the short side)")
    print(f"{'method':34s} {'mean IoU':>9s} {'error %':>8s} {'s/image':>8s}")
    for cname, _ in configs:
        a = np.array(rows[cname])
        print(f"{'flowcut ' + cname:34s} {a[:,0].mean():9.4f} {100*a[:,1].mean():8.2f} {a[:,2].mean():8.3f}")
    if gc_rows:
        a = np.array(gc_rows)
        print(f"{'cv2.grabCut (mask init, 5 iter)':34s} {a[:,0].mean():9.4f} {100*a[:,1].mean():8.2f} {a[:,2].mean():8.3f}")

if __name__ == "__main__":
    main()
