#!/usr/bin/python3
"""Segmentation quality on the seg-dev set and the Weizmann horses (folders
seg-dev/ and weizmann/ found beside the checkout or through --data):
flowcut against OpenCV's cv2.grabCut (mask initialisation, 5 iterations) on
the same synthetic seeds, under two protocols:
  dense: 3 strokes of 3 random segments inside each region, eroded away
         from the boundary (the 128 void band is never seeded or scored);
  robot: sparse strokes: one short straight foreground stroke
         through the object's deepest interior point, a fifth of the
         object's size long, and two or three short background strokes.
Both deterministic from the image name. Reports mean IoU of the
foreground, mean error rate and mean time per image. Needs python3-opencv
(Debian), benchmark only.

Interactive protocols (clicker.py, needs python3-scipy besides):
  clicks: the click robot of the interactive-segmentation literature
          (RITM): from an empty prediction, each click at the deepest point
          of the larger error region (false negatives: positive click,
          false positives: negative), the mask recomputed from all clicks
          so far after each, up to 20 clicks. Reports mean NoC@85 and
          NoC@90 (clicks to reach that IoU, 20 if never), mean IoU after
          1, 3 and 5 clicks, seconds per click (wall time of one segmentation
          call) and CPU seconds per click (user + system of that call, less
          sensitive to a shared machine's load).
  box:    the ground truth's bounding box grown by 5% of its size on each
          side, then the same robot from the box's mask; and cv2.grabCut
          initialised with the same rectangle (5 iterations).
--prompts chooses how clicks reach flowcut: seeds (default; the CLI:
each click a disk of --radius px, default 5, in a seed image, the photo's
frame as background until the first negative click; for a box, all of the
outside as background, and since the CLI refuses a box without a
foreground seed the box protocol's baseline is box + robot clicks, with no
box-only mask) or cli (`flowcut segment IMAGE --clicks 'X,Y -X,Y ...'
--box X,Y,W,H`, a minus for a background click; the syntax is in one
place, clicker.cli_prompt_args), each call after the first with the mask
before the newest click as --previous, as a session's click corrects its
last answer (--no-previous: the clicks alone).

usage: seg_eval.py FLOWCUT [--configs all|default] [--limit N] [--no-grabcut]
                           [--protocol dense|robot|both|clicks|box]
                           [--set seg-dev|weizmann|both] [--jobs N]
                           [--prompts seeds|cli] [--radius R] [--markdown]
                           [--no-flowcut] [--flowcut-args '--star on ...'] [--data DIR]
                           [--no-previous]
--jobs runs N flowcut processes at once (the time column is then per
process, with the cores shared); for clicks and box, N sessions at once.
--markdown prints the interactive tables as Markdown; --no-flowcut leaves
out flowcut's sessions (box: grabCut alone). --flowcut-args adds options to
every `flowcut segment` call of --prompts cli; --data DIR reads seg-dev/ and
weizmann/ from DIR instead of beside the checkout.
"""
import os, subprocess, sys, tempfile, time, zlib
from concurrent.futures import ThreadPoolExecutor
import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "shared", "data", "seg-dev")
WEIZMANN = os.path.join(HERE, "..", "..", "..", "shared", "data", "weizmann")

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

def robot_seeds(label, name):
    """One short straight stroke in each region, as a hurried user draws."""
    rng = np.random.default_rng(zlib.crc32(("robot" + name).encode()))
    h, w = label.shape
    r = max(3, int(0.03 * min(h, w)))
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    seeds = np.zeros(label.shape, np.uint8)
    fg = (label == 255).astype(np.uint8)
    er = cv2.erode(fg, k)
    if er.sum() < 20:
        er = cv2.erode(fg, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    if er.sum() == 0:
        er = fg
    # through the deepest interior point, a fifth of the object's size long
    depth = cv2.distanceTransform(er, cv2.DIST_L2, 3)
    cy, cx = np.unravel_index(int(np.argmax(depth)), depth.shape)
    ys, xs = np.nonzero(fg)
    size = max(xs.max() - xs.min(), ys.max() - ys.min()) + 1
    half, a = size / 10.0, rng.uniform(0, np.pi)
    line = np.zeros(label.shape, np.uint8)
    cv2.line(line, (int(cx - half * np.cos(a)), int(cy - half * np.sin(a))),
             (int(cx + half * np.cos(a)), int(cy + half * np.sin(a))), 1, 3)
    seeds[(line & er) > 0] = 1
    if not (seeds == 1).any():
        seeds[cy, cx] = 1
    bg = (label == 0).astype(np.uint8)
    bger = cv2.erode(bg, k)
    if bger.sum() < 20:
        bger = bg
    bys, bxs = np.nonzero(bger)
    length = min(h, w) / 8.0
    for _ in range(int(rng.integers(2, 4))):
        i = int(rng.integers(0, len(bxs)))
        a = rng.uniform(0, np.pi)
        line[:] = 0
        cv2.line(line, (int(bxs[i]), int(bys[i])),
                 (int(bxs[i] + length * np.cos(a)), int(bys[i] + length * np.sin(a))), 1, 3)
        seeds[((line & bger) > 0) & (seeds == 0)] = 2
    return seeds

def load_set(which):
    """(name, image path, label array) of a data set; labels: 0, 255, 128 void."""
    out = []
    if which == "seg-dev":
        for name in sorted(os.listdir(os.path.join(DATA, "images"))):
            out.append((name, os.path.join(DATA, "images", name), os.path.join(DATA, "labels", name), False))
    else:
        for name in sorted(os.listdir(os.path.join(WEIZMANN, "gray"))):
            out.append((name, os.path.join(WEIZMANN, "gray", name), os.path.join(WEIZMANN, "figure_ground", name), True))
    return out

def read_label(path, threshold):
    lab = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if threshold:  # JPEG masks: threshold at 128, no void band
        lab = np.where(lab >= 128, 255, 0).astype(np.uint8)
    return lab

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
    # k-means inside grabCut draws from OpenCV's thread RNG, which carries on
    # from the previous call: a fixed seed per call keeps results deterministic
    cv2.setRNGSeed(0)
    t0 = time.perf_counter()
    cv2.grabCut(img, mask, None, bgd, fgd, 5, cv2.GC_INIT_WITH_MASK)
    t = time.perf_counter() - t0
    return np.where((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD), 255, 0).astype(np.uint8), t

def interactive(flowcut, which, items, protocol, prompts, radius, jobs, grabcut, markdown, tmp, flowcut_rows=True):
    """The clicks or box protocol on one data set: one table row for flowcut
    (and for box, one for grabCut)."""
    import clicker
    segment = (clicker.SeedPrompts(flowcut, radius) if prompts == "seeds" else
               clicker.CliPrompts(flowcut, EXTRA, previous=not NO_PREVIOUS))
    labels = [read_label(lp, th) for _, _, lp, th in items]
    boxes = [clicker.grown_box(lab) if protocol == "box" else None for lab in labels]

    def one(k):
        r = clicker.session(segment, items[k][1], labels[k], boxes[k], os.path.join(tmp, "s%d" % k))
        # one line per image on stderr: the table's inputs, for a run cut short
        print("%s %s NoC@85 %d NoC@90 %d IoU@1/3/5 %.4f %.4f %.4f failed %d s/click %.3f" % (
            which, items[k][0], clicker.noc(r["ious"], 0.85), clicker.noc(r["ious"], 0.90), r["ious"][1],
            r["ious"][3], r["ious"][5], r["failed"], np.mean(r["times"]) if r["times"] else 0), file=sys.stderr, flush=True)
        return r
    rows = []
    if not flowcut_rows:
        res = []
    else:
        with ThreadPoolExecutor(jobs) as pool:
            res = list(pool.map(one, range(len(items))))
    if res:
        ious = np.array([r["ious"] for r in res]).reshape(len(res), 21)
        times = np.concatenate([r["times"] for r in res] or [[]])
        cpus = np.concatenate([r["cpu"] for r in res] or [[]])
        row = {"set": which, "protocol": protocol, "method": "flowcut, prompts " + prompts +
               (" r=%d" % radius if prompts == "seeds" else " no --previous" if NO_PREVIOUS else "") +
               (" " + " ".join(EXTRA) if EXTRA else ""),
               "images": len(items),
               "NoC@85": np.mean([clicker.noc(i, 0.85) for i in ious]),
               "NoC@90": np.mean([clicker.noc(i, 0.90) for i in ious]),
               ">=20@90": sum(i[20] < 0.90 for i in ious),
               "IoU@1": ious[:, 1].mean(), "IoU@3": ious[:, 3].mean(), "IoU@5": ious[:, 5].mean(),
               "s/click": times.mean() if len(times) else float("nan"),
               "CPU s/click": cpus.mean() if len(cpus) else float("nan"),
               "failed calls": "%d (%d images)" % (sum(r["failed"] for r in res), sum(r["failed"] > 0 for r in res))}
        rows.append(row)
    if protocol == "box":
        if res:
            bi = [r["box_iou"] for r in res if r["box_iou"] is not None]
            bt = [r["box_time"] for r in res if r["box_time"] is not None]
            row["box IoU"] = np.mean(bi) if bi else None
            row["s/box"] = np.mean(bt) if bt else None
        if grabcut:
            # after flowcut: OpenCV's worker threads slow a flowcut run that
            # follows grabCut (see the dense protocol)
            gi, gt, gc, gf = [], [], [], 0
            for k, (name, image, _, _) in enumerate(items):
                img = cv2.imread(image, cv2.IMREAD_COLOR)
                m, t, c = clicker.grabcut_box(img, boxes[k])
                gf += m is None
                gi.append(0.0 if m is None else clicker.iou(m, labels[k]))
                gt.append(t)
                gc.append(c)
            rows.append({"set": which, "protocol": protocol, "method": "cv2.grabCut (rect init, 5 iter)",
                         "images": len(items), "box IoU": np.mean(gi), "s/box": np.mean(gt),
                         "CPU s/box": np.mean(gc), "failed calls": "%d (%d images)" % (gf, gf)})
    cols = ["set", "protocol", "method", "images", "NoC@85", "NoC@90", ">=20@90", "IoU@1", "IoU@3", "IoU@5",
            "s/click", "CPU s/click", "failed calls"] + (["box IoU", "s/box", "CPU s/box"] if protocol == "box" else [])
    fmt = lambda v: "-" if v is None else ("%.4f" % v if isinstance(v, (float, np.floating)) else str(v))
    if markdown:
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        for r in rows:
            print("| " + " | ".join(fmt(r.get(c)) for c in cols) + " |", flush=True)
    else:
        widths = [max(len(c), *(len(fmt(r.get(c))) for r in rows)) for c in cols]
        print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
        for r in rows:
            print("  ".join(fmt(r.get(c)).rjust(w) for c, w in zip(cols, widths)), flush=True)

EXTRA = []  # --flowcut-args: more `flowcut segment` options for the interactive protocols
NO_PREVIOUS = False  # --no-previous: every call from the clicks alone


def main():
    global DATA, WEIZMANN, NO_PREVIOUS
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    flowcut = sys.argv[1]
    args = sys.argv[2:]
    opt = lambda k, d: args[args.index(k) + 1] if k in args else d
    import shlex
    EXTRA[:] = shlex.split(opt("--flowcut-args", ""))
    NO_PREVIOUS = "--no-previous" in args
    if "--data" in args:  # a folder holding seg-dev/ and weizmann/
        DATA = os.path.join(opt("--data", ""), "seg-dev")
        WEIZMANN = os.path.join(opt("--data", ""), "weizmann")
    limit = int(opt("--limit", "0")) or None
    if opt("--protocol", "both") in ("clicks", "box"):
        # clicker.py sits beside this script; no __pycache__ in the source tree
        sys.dont_write_bytecode = True
        sys.path.insert(0, HERE)
        tmp = tempfile.mkdtemp(prefix="seg_eval-")
        for which in ["seg-dev", "weizmann"] if opt("--set", "both") == "both" else [opt("--set", "both")]:
            if not os.path.isdir(DATA if which == "seg-dev" else WEIZMANN):
                print(f"{which}: skipped: data set not found")
                continue
            interactive(flowcut, which, load_set(which)[:limit], opt("--protocol", "both"),
                        opt("--prompts", "seeds"), int(opt("--radius", "5")), int(opt("--jobs", "1")),
                        "--no-grabcut" not in args, "--markdown" in args, tmp, "--no-flowcut" not in args)
        return
    sweep = opt("--configs", "default") == "all"
    protocols = ["dense", "robot"] if opt("--protocol", "both") == "both" else [opt("--protocol", "both")]
    sets = ["seg-dev", "weizmann"] if opt("--set", "both") == "both" else [opt("--set", "both")]
    jobs = int(opt("--jobs", "1"))
    configs = [("default", [])]
    if sweep:
        # each row changes one option of the defaults; the first is the
        # pipeline without the geodesic priors (no geodesic prior, lambda 150)
        configs = [("default", []),
                   ("before: geodesic 0, lambda 150", ["--geodesic", "0", "--lambda", "150"]),
                   ("geodesic 0", ["--geodesic", "0"]), ("geodesic 8", ["--geodesic", "8"]),
                   ("geodesic 20", ["--geodesic", "20"]), ("border off", ["--border", "off"]),
                   ("border 0.5", ["--border", "0.5"]), ("star on", ["--star", "on"]),
                   ("lambda 50", ["--lambda", "50"]), ("lambda 100", ["--lambda", "100"]),
                   ("lambda 150", ["--lambda", "150"]),
                   ("uniform-mix 0.03", ["--uniform-mix", "0.03"]),
                   ("hist", ["--model", "hist"]), ("4-conn", ["--connectivity", "4"]),
                   ("iterations 2", ["--iterations", "2"])]
    tmp = tempfile.mkdtemp()
    print(f"{'set':9s} {'protocol':8s} {'method':40s} {'mean IoU':>9s} {'error %':>8s} {'s/image':>8s}")
    for which in sets:
        if not os.path.isdir(DATA if which == "seg-dev" else WEIZMANN):
            print(f"{which}: skipped: data set not found")
            continue
        items = load_set(which)[:limit]
        for protocol in protocols:
            make = make_seeds if protocol == "dense" else robot_seeds
            rows = {c[0]: [] for c in configs}
            gc_rows = []
            # flowcut first, grabCut after: OpenCV's worker threads keep spinning for
            # a while after each grabCut call and slow a flowcut run that follows
            # it on a machine of few cores
            labels, seed_paths = [], []
            for name, image, label_path, threshold in items:
                labels.append(read_label(label_path, threshold))
                seed_paths.append(os.path.join(tmp, "seeds-" + os.path.splitext(name)[0] + ".png"))
                cv2.imwrite(seed_paths[-1], make(labels[-1], name))

            def one(k, cargs):
                out = os.path.join(tmp, "mask-%d.png" % k)
                t0 = time.perf_counter()
                subprocess.run([flowcut, "segment", items[k][1], "--seeds", seed_paths[k], "-o", out, "-f", "-q",
                                "--engine", "cpu"] + cargs, check=True)
                t = time.perf_counter() - t0
                return score(cv2.imread(out, cv2.IMREAD_GRAYSCALE), labels[k]) + (t,)
            with ThreadPoolExecutor(jobs) as pool:
                for cname, cargs in configs:
                    rows[cname] = list(pool.map(lambda k: one(k, cargs), range(len(items))))
            for name, image, label_path, threshold in items if "--no-grabcut" not in args else []:
                img = cv2.imread(image, cv2.IMREAD_COLOR)
                label = read_label(label_path, threshold)
                m, t = run_grabcut(img, make(label, name))
                gc_rows.append(score(m, label) + (t,))
            for cname, _ in configs:
                a = np.array(rows[cname])
                print(f"{which:9s} {protocol:8s} {'flowcut ' + cname:40s} {a[:,0].mean():9.4f} "
                      f"{100*a[:,1].mean():8.2f} {a[:,2].mean():8.3f}", flush=True)
            if gc_rows:
                a = np.array(gc_rows)
                print(f"{which:9s} {protocol:8s} {'cv2.grabCut (mask init, 5 iter)':40s} {a[:,0].mean():9.4f} "
                      f"{100*a[:,1].mean():8.2f} {a[:,2].mean():8.3f}", flush=True)

if __name__ == "__main__":
    main()
