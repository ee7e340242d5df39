"""The click robot of the interactive-segmentation literature (the NoC
protocol of RITM, isegm/inference/clicker.py and evaluation.py) and the
ways its clicks reach flowcut. Imported by seg_eval.py (--protocol clicks
and --protocol box); benchmark only.

Labels are the ground truth as seg_eval.py reads it: 255 foreground,
0 background, 128 void (never clicked, never scored).
"""
import json, os, subprocess, time
import cv2
import numpy as np
from scipy.ndimage import distance_transform_edt


def depth(region):
    """Exact Euclidean distance of each pixel of region to the nearest pixel
    outside it. The mask is padded with a 1-pixel frame of False so that the
    image border counts as the region's boundary: an error region touching
    the border is not deeper there than in the middle of the photo."""
    padded = np.pad(region, 1, mode="constant", constant_values=False)
    return distance_transform_edt(padded)[1:-1, 1:-1]


class Clicker:
    """Places each click at the deepest point of the larger error region."""

    def __init__(self, label):
        self.gt_fg = label == 255
        # void pixels are neither foreground nor background: 128 is in neither
        self.gt_bg = label == 0
        self.clicked = np.zeros(label.shape, bool)
        self.clicks = []  # (x, y, positive) in click order

    def next_click(self, pred):
        """The next click for the prediction pred (bool, True = foreground),
        or None when no error pixel is left to click."""
        fn = depth(self.gt_fg & ~pred)
        fp = depth(self.gt_bg & pred)
        # a pixel is clicked at most once: clicked pixels drop out of both
        # maps before the comparison, as RITM's not_clicked_map does, so a
        # repeated argmax moves to the next best point
        fn[self.clicked] = 0
        fp[self.clicked] = 0
        dfn, dfp = fn.max(), fp.max()
        if dfn == 0 and dfp == 0:
            return None
        # positive only when the false negatives are strictly deeper (RITM)
        positive = bool(dfn > dfp)
        dist = fn if positive else fp
        # np.argmax: ties go to the first point in row-major order
        y, x = np.unravel_index(int(np.argmax(dist)), dist.shape)
        self.clicked[y, x] = True
        click = (int(x), int(y), positive)
        self.clicks.append(click)
        return click


def iou(pred, label):
    """Foreground IoU over the non-void pixels (1 when both are empty)."""
    valid = label != 128
    gt = label == 255
    union = (pred | gt)[valid].sum()
    return (pred & gt)[valid].sum() / union if union else 1.0


def grown_box(label, frac=0.05):
    """The ground truth's foreground bounding box grown by frac of its width
    and height on each side and clipped to the image, as (x, y, w, h);
    None for an empty foreground."""
    ys, xs = np.nonzero(label == 255)
    if len(xs) == 0:
        return None
    x0, x1, y0, y1 = xs.min(), xs.max(), ys.min(), ys.max()
    dx = int(frac * (x1 - x0 + 1) + 0.5)
    dy = int(frac * (y1 - y0 + 1) + 0.5)
    h, w = label.shape
    x0, y0 = max(0, x0 - dx), max(0, y0 - dy)
    x1, y1 = min(w - 1, x1 + dx), min(h - 1, y1 + dy)
    return int(x0), int(y0), int(x1 - x0 + 1), int(y1 - y0 + 1)


# ---- how clicks reach flowcut -------------------------------------------
# A prompt implementation is called as segment(image, clicks, box, work)
# with clicks a list of (x, y, positive), box (x, y, w, h) or None and work
# a scratch path prefix of its own; it returns (mask, cpu): the mask (bool
# array) or None when flowcut refused or failed, and the CPU seconds (user +
# system) of the flowcut process.

def _run(flowcut, argv, out, report=None):
    # os.wait4 gives this one child's CPU time: on a shared machine the wall
    # time also counts the other processes' turns on the cores. With report
    # (a dict), the run's --json object is read into it.
    p = subprocess.Popen([flowcut, "segment"] + argv + ["-o", out, "-f", "-q"] + (["--json"] if report is not None else []),
                         stdout=subprocess.PIPE if report is not None else subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    text = p.stdout.read() if report is not None else b""
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    cpu = ru.ru_utime + ru.ru_stime
    if p.returncode != 0:
        return None, cpu
    if report is not None:
        report.update(json.loads(text))
    m = cv2.imread(out, cv2.IMREAD_GRAYSCALE)
    return (None if m is None else m > 127), cpu


class SeedPrompts:
    """Clicks as seeds (--prompts seeds): each click becomes a disk of radius
    r in a grey seed image (1 foreground, 2 background), run with the
    default options of `flowcut segment`."""

    # a box without a foreground seed is refused by the CLI
    box_alone = False

    def __init__(self, flowcut, radius=5):
        self.flowcut, self.radius = flowcut, radius

    def seeds(self, shape, clicks, box):
        s = np.zeros(shape, np.uint8)
        if box is not None:
            # the box says everything outside it is background; the inside
            # stays unmarked (flowcut needs a foreground seed besides, so the
            # box alone is refused and the robot's first click supplies it)
            x, y, w, h = box
            s[:] = 2
            s[y:y + h, x:x + w] = 0
        elif not any(not p for _, _, p in clicks):
            # one positive click needs a background seed to be segmented:
            # the photo's 1-pixel frame is the background until the user
            # gives a negative click of their own
            s[0, :] = s[-1, :] = s[:, 0] = s[:, -1] = 2
        # disks in click order, a later click's disk over an earlier one (the
        # later click is the user's correction); then each clicked pixel gets
        # its own label back, so no click is lost under a neighbour's disk
        for x, y, p in clicks:
            cv2.circle(s, (x, y), self.radius, 1 if p else 2, -1)
        for x, y, p in clicks:
            s[y, x] = 1 if p else 2
        return s

    def __call__(self, image, clicks, box, work, shape, previous=None):
        seeds = work + "-seeds.png"
        cv2.imwrite(seeds, self.seeds(shape, clicks, box))
        return _run(self.flowcut, [image, "--seeds", seeds], work + "-mask.png")


def cli_prompt_args(clicks, box, radii=()):
    """The CLI's click and box syntax, in this one place: all clicks in one
    --clicks argument, pairs X,Y separated by spaces, a leading '-' for a
    negative (background) click ('300,150 -290,140'), X,Y,R for a click
    whose disc has radius R (radii[i] for click i where given), and --box
    X,Y,W,H (flowcut segment --clicks/--box)."""
    argv = []
    if clicks:
        text = []
        for i, (x, y, p) in enumerate(clicks):
            r = radii[i] if i < len(radii) else 0
            text.append(("" if p else "-") + ("%d,%d,%d" % (x, y, r) if r else "%d,%d" % (x, y)))
        argv += ["--clicks", " ".join(text)]
    if box is not None:
        argv += ["--box", "%d,%d,%d,%d" % box]
    return argv


class CliPrompts:
    """Clicks and box passed to `flowcut segment` as options (no seed file),
    default options otherwise. With previous (the default), each call after
    the first also gets the mask flowcut gave before the newest click
    (--previous), as a session's click corrects its last answer; flowcut
    then chooses that click's disc from the mask (its --json says the
    radius), and the later calls give each earlier click the disc it had
    (X,Y,R), as a session keeps it."""

    box_alone = True

    def __init__(self, flowcut, extra=(), previous=True):
        self.flowcut = flowcut
        self.extra = list(extra)  # more `flowcut segment` options (--flowcut-args)
        self.previous = previous
        self.radii = {}  # work path -> the radius flowcut gave each click so far

    def __call__(self, image, clicks, box, work, shape, previous=None):
        radii = self.radii.setdefault(work, [])
        del radii[max(0, len(clicks) - 1):]  # a new session starts with its first click
        argv = [image] + cli_prompt_args(clicks, box, radii) + self.extra
        if self.previous and previous is not None and clicks:
            cv2.imwrite(work + "-previous.png", previous.astype(np.uint8) * 255)
            argv += ["--previous", work + "-previous.png"]
        report = {}
        m, cpu = _run(self.flowcut, argv, work + "-mask.png", report if clicks else None)
        if clicks:
            radii.append(report.get("click_radius", 0))
        return m, cpu


def session(segment, image, label, box, work, max_clicks=20, stop_at=0.90, min_clicks=5):
    """One interactive session: the robot clicks, flowcut recomputes the
    mask from all clicks so far after each one (as a user runs it).

    Returns dict: ious[k] = IoU after k clicks (ious[0]: before any click,
    the box-only mask for the box protocol when the prompts can give one,
    else the empty prediction), times (seconds of each segmentation call),
    cpu (CPU seconds of each call), failed (calls that gave no mask,
    scored IoU 0), box_iou and box_time
    (the box-only mask's IoU and seconds, None when not available; not in
    times, which are per click).

    The session stops once IoU >= stop_at after at least min_clicks clicks:
    NoC@85/90 and IoU@1/3/5 do not depend on later clicks, and the seeds
    emulation costs a whole CLI process per click. Later entries repeat the
    last IoU (stop_at > 1 runs all max_clicks)."""
    shape = label.shape
    clicker = Clicker(label)
    pred = np.zeros(shape, bool)
    answer = None  # flowcut's last mask, which the next click corrects
    times, cpus, failed, box_iou, box_time = [], [], 0, None, None
    if box is not None and segment.box_alone:
        t0 = time.perf_counter()
        m, _ = segment(image, [], box, work, shape)
        box_time = time.perf_counter() - t0
        if m is None:
            failed += 1
            box_iou = 0.0
        else:
            pred, box_iou, answer = m, iou(m, label), m
    ious = [iou(pred, label) if box_iou is None else box_iou]
    while len(ious) <= max_clicks:
        k = len(ious) - 1
        if k >= min_clicks and ious[-1] >= stop_at:
            break
        click = clicker.next_click(pred)
        if click is None:
            # nothing left to correct: the mask stays as it is
            ious.append(ious[-1])
            continue
        t0 = time.perf_counter()
        m, cpu = segment(image, clicker.clicks, box, work, shape, previous=answer)
        answer = m
        times.append(time.perf_counter() - t0)
        cpus.append(cpu)
        if m is None:
            # a refused or failed call scores 0 and leaves the robot facing
            # an empty prediction
            failed += 1
            pred = np.zeros(shape, bool)
            ious.append(0.0)
        else:
            pred = m
            ious.append(iou(m, label))
    ious += [ious[-1]] * (max_clicks + 1 - len(ious))
    return {"ious": ious, "times": times, "cpu": cpus, "failed": failed, "box_iou": box_iou,
            "box_time": box_time, "clicks": list(clicker.clicks)}


def noc(ious, threshold, max_clicks=20):
    """Number of clicks to reach threshold: the first k >= 1 with
    ious[k] >= threshold, max_clicks when never."""
    for k in range(1, max_clicks + 1):
        if ious[k] >= threshold:
            return k
    return max_clicks


def grabcut_box(img, box, iterations=5):
    """cv2.grabCut initialised with the rectangle; (mask or None, seconds,
    CPU seconds of this process: run it alone, not beside other threads)."""
    mask = np.zeros(img.shape[:2], np.uint8)
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    # grabCut's k-means starts from OpenCV's thread RNG, which carries on from
    # the previous call: the same photo gave IoU 0.99 and 0.82 in two calls;
    # a fixed seed per call makes each image's result deterministic
    cv2.setRNGSeed(0)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        cv2.grabCut(img, mask, box, bgd, fgd, iterations, cv2.GC_INIT_WITH_RECT)
        ok = True
    except cv2.error:
        # a rectangle covering the whole photo leaves no background sample
        ok = False
    t, c = time.perf_counter() - t0, time.process_time() - c0
    return ((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD) if ok else None), t, c
