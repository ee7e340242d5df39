"""Photo + seeds -> mask, as `flowcut segment` does it, on numpy arrays.

Options are the model and engine options of `flowcut segment --help`, as
keywords with '_' for '-' (a trailing '_' is dropped, so lambda_=100 is
--lambda 100), for example lambda_, connectivity, model, uniform_mix,
geodesic, border ("off" or a distance), star ("on" or "off"), iterations,
engine, cpu_algorithm, device, threads. Each goes by name to the library's
seg_options_set, which checks every value (ValueError with its message), so
an option the library gains is a keyword here with no change."""
import ctypes

import numpy as np

from . import _lib
from ._lib import FlowcutError


def _options(seeds_kind, options):
    o = _lib.seg_options_new()
    if not o:
        raise MemoryError("flowcut: out of memory")
    try:
        err = _lib.SegError()
        items = [("seeds", seeds_kind)] + list(options.items())
        for key, value in items:
            name = key.replace("_", "-").rstrip("-")
            if isinstance(value, bool) or value is None:
                raise ValueError(f"{name}: {value!r} is not an option value")
            if _lib.seg_options_set(o, name.encode(), str(value).encode(), ctypes.byref(err)):
                raise ValueError(err.message.decode())
        return o
    except BaseException:
        _lib.seg_options_free(o)
        raise


def _rgb(image):
    a = np.asarray(image)
    if a.dtype != np.uint8:
        raise TypeError(f"image must be uint8, not {a.dtype}")
    if a.ndim == 2:
        a = np.repeat(a[:, :, None], 3, axis=2)
    elif a.ndim == 3 and a.shape[2] == 4:
        a = a[:, :, :3]
    elif a.ndim != 3 or a.shape[2] != 3:
        raise ValueError(f"image must be H x W (grey), H x W x 3 (RGB) or H x W x 4, not {a.shape}")
    if a.shape[0] < 1 or a.shape[1] < 1:
        raise ValueError(f"image is empty: {a.shape}")
    return np.ascontiguousarray(a)


def _seeds(seeds, shape):
    s = np.asarray(seeds)
    if s.dtype == np.bool_:
        raise TypeError("seeds are labels (0 unmarked, 1 foreground, 2 background), not booleans")
    if s.dtype != np.uint8:
        if not np.issubdtype(s.dtype, np.integer) or s.size and (s.min() < 0 or s.max() > 255):
            raise TypeError(f"seeds must be uint8 (or integers in 0..255), not {s.dtype}")
        s = s.astype(np.uint8)
    if s.shape[:2] != shape[:2] or s.ndim not in (2, 3) or (s.ndim == 3 and s.shape[2] != 3):
        raise ValueError(f"seeds must be {shape[0]} x {shape[1]} (labels) or {shape[0]} x {shape[1]} x 3 "
                         f"(scribbles) like the image, not {s.shape}")
    return np.ascontiguousarray(s)


def _prompts(clicks, box):
    """A C seg_prompts from clicks ((x, y) foreground, (x, y, False)
    background, (x, y, positive, radius) with the disc's radius, or the
    text form "X,Y -X,Y ...") and box (x, y, w, h); None when there are
    neither. Free with _lib.seg_prompts_free."""
    if clicks is None and box is None:
        return None
    p = _lib.seg_prompts_new()
    if not p:
        raise MemoryError("flowcut: out of memory")
    err = _lib.SegError()
    try:
        if isinstance(clicks, str):
            if _lib.seg_prompts_parse(p, clicks.encode(), b"clicks", ctypes.byref(err)):
                raise ValueError(err.message.decode())
        elif clicks is not None:
            for i, c in enumerate(clicks):
                if len(c) not in (2, 3, 4):
                    raise ValueError(f"a click is (x, y), (x, y, positive) or (x, y, positive, radius), not {c!r}")
                label = 1 if len(c) == 2 or c[2] else 2
                if _lib.seg_prompts_add_click(p, int(c[0]), int(c[1]), label, ctypes.byref(err)) or (
                        len(c) == 4 and _lib.seg_prompts_set_radius(p, i, int(c[3]), ctypes.byref(err))):
                    raise ValueError(err.message.decode())
        if box is not None:
            if len(box) != 4:
                raise ValueError(f"box is (x, y, width, height), not {box!r}")
            if _lib.seg_prompts_set_box(p, *(int(v) for v in box), ctypes.byref(err)):
                raise ValueError(err.message.decode())
        return p
    except BaseException:
        _lib.seg_prompts_free(p)
        raise


def _previous(previous, shape):
    """The previous answer as 0 / 1 bytes (a mask, 255 or any nonzero foreground)."""
    m = np.asarray(previous)
    if m.shape != shape[:2]:
        raise ValueError(f"previous must have the image's shape {tuple(shape[:2])} (height, width), not {m.shape}")
    return np.ascontiguousarray(m != 0, dtype=np.uint8)


def _run(image, seeds, seeds_kind, return_info, options, clicks=None, box=None, previous=None):
    rgb = _rgb(image)
    sd = _seeds(seeds, rgb.shape) if seeds is not None else None
    if sd is None and clicks is None and box is None:
        raise ValueError("give seeds, clicks or a box")
    prev = _previous(previous, rgb.shape) if previous is not None else None
    o = _options(seeds_kind, options)
    p = None
    try:
        p = _prompts(clicks, box)
        _lib.seg_options_set_prompts(o, p)
        h, w = rgb.shape[:2]
        if prev is not None:
            _lib.seg_options_set_previous(o, prev.ctypes.data, w, h)
        mask = np.empty((h, w), np.uint8)
        info, err = _lib.SegInfo(), _lib.SegError()
        rc = _lib.seg_segment(rgb.ctypes.data, w, h, sd.ctypes.data if sd is not None else None,
                              0 if sd is None else 1 if sd.ndim == 2 else 3, o,
                              mask.ctypes.data, ctypes.byref(info), ctypes.byref(err))
        _lib.seg_check(rc, err)
    finally:
        _lib.seg_options_free(o)
        if p:
            _lib.seg_prompts_free(p)
    if return_info:
        return mask, _info(info)
    return mask


def _info(info):
    return {"flow": info.flow, "foreground_pixels": info.foreground,
            "engine": "gpu" if info.engine == _lib.MF_ENGINE_GPU else "cpu", "device": info.device.decode(),
            "iterations": info.iterations, "model_seconds": info.model_seconds,
            "build_seconds": info.build_seconds, "solve_seconds": info.solve_seconds,
            "click_radius": info.click_radius}


def segment(image, seeds=None, *, clicks=None, box=None, previous=None, return_info=False, **options):
    """Segments image (H x W x 3 uint8 RGB; grey and RGBA are accepted) with
    seed labels (H x W: 1 foreground, 2 background, 0 unmarked; an
    H x W x 3 array is read as red/blue scribbles), clicks or a box, or
    any of them together: clicks=[(x, y), (x, y, False), ...] (foreground
    unless the third item is False; a fourth, the radius of the click's
    disc; or the text form "X,Y -X,Y"), box=(x,
    y, width, height) (all outside it is background). One foreground click
    is enough: the photo's border stands in for the background. Returns
    the mask, H x W uint8, 255 foreground and 0 background: the same bits
    as `flowcut segment`. previous: the mask the last click corrects
    (`flowcut segment --previous`): away from that click the answer keeps
    its labels unless the photo argues by more than keep= nats (default 4),
    as a Session does at each click, and that click's disc stays inside the
    region it corrects. With return_info, (mask, dict of flow, engine,
    times, click_radius: the last click's disc). Raises FlowcutError (e.g. no foreground seed) or
    ValueError."""
    return _run(image, seeds, "labels", return_info, options, clicks, box, previous)


def segment_trimap(image, trimap, *, return_info=False, **options):
    """As segment, with a trimap: 255 foreground, 0 background, else unknown."""
    return _run(image, trimap, "trimap", return_info, options)


def segment_scribbles(image, scribbles, *, fg=(255, 0, 0), bg=(0, 0, 255), return_info=False, **options):
    """As segment, with an H x W x 3 scribble image: pixels of colour fg are
    foreground seeds, of colour bg background, all others unmarked."""
    def hexrgb(c):
        if len(c) != 3 or any(not 0 <= int(v) <= 255 for v in c):
            raise ValueError(f"a scribble colour is (R, G, B) in 0..255, not {c!r}")
        return "%02x%02x%02x" % tuple(int(v) for v in c)
    options = dict(options, scribble_colors=hexrgb(fg) + "," + hexrgb(bg))
    if np.asarray(scribbles).ndim != 3:
        raise ValueError("scribbles must be H x W x 3 (RGB)")
    return _run(image, scribbles, "scribble", return_info, options)


def segment_files(image_path, seeds_path, *, trimap=False, return_info=False, **options):
    """Segments image files (PNG, JPEG, BMP, ...) as `flowcut segment IMAGE
    --seeds SEEDS` (or --trimap); returns the mask array."""
    o = _options("trimap" if trimap else "labels", options)
    try:
        out = _lib.c_u8p()
        w, h = ctypes.c_int32(), ctypes.c_int32()
        info, err = _lib.SegInfo(), _lib.SegError()
        rc = _lib.seg_segment_files(str(image_path).encode(), str(seeds_path).encode(), o, ctypes.byref(out),
                                    ctypes.byref(w), ctypes.byref(h), ctypes.byref(info), ctypes.byref(err))
        _lib.seg_check(rc, err)
        try:
            mask = np.ctypeslib.as_array(out, shape=(h.value, w.value)).copy()
        finally:
            _lib.seg_free(ctypes.cast(out, ctypes.c_void_p))
    finally:
        _lib.seg_options_free(o)
    if return_info:
        return mask, _info(info)
    return mask


def _batch_item(item):
    keys = ("image", "seeds", "mask", "prompts", "overlay", "cutout")
    if isinstance(item, dict):
        unknown = set(item) - set(keys)
        if unknown:
            raise ValueError(f"a batch item has the keys {', '.join(keys)}, not {', '.join(sorted(unknown))}")
        d = dict(item)
    else:
        t = tuple(item)
        if len(t) != 3:
            raise ValueError(f"a batch item is (image, seeds, mask) or a dict, not {item!r}")
        d = dict(zip(("image", "seeds", "mask"), t))
    if not d.get("image") or not d.get("mask"):
        raise ValueError(f"a batch item needs an image and a mask path: {item!r}")
    if not d.get("seeds") and not d.get("prompts"):
        raise ValueError(f"a batch item needs seeds, prompts or both: {item!r}")
    return {k: (str(d[k]).encode() if d.get(k) else None) for k in keys}


def segment_batch(items, *, trimap=False, jobs=0, gpus="all", per_gpu=4, per_launch=16, overwrite=False,
                  progress=None, **options):
    """Segments many image files on every core and every GPU, as `flowcut
    batch` does (the same scheduler, seg_batch_run), writing each mask
    (and overlay / cut-out) as a PNG, all of an item's files or none.
    items: (image, seeds, mask) tuples or dicts with the keys image, seeds,
    prompts (a prompt file of clicks and a box), mask, overlay, cutout.
    gpus: "all", "none" (the CPU) or a list of device numbers. overwrite:
    replace existing outputs (else such an item fails). progress: called
    with each item's result as it ends. Returns one dict per item, in the
    items' order: status "ok" or "error", error, flow, foreground_pixels,
    engine, device, width, height, times. Raises only when the batch cannot
    start (ValueError for bad arguments, FlowcutError e.g. no GPU where
    gpus names one)."""
    rows = [_batch_item(i) for i in items]
    n = len(rows)
    c_items = (_lib.SegBatchItem * max(n, 1))()
    for i, r in enumerate(rows):
        c_items[i] = _lib.SegBatchItem(r["image"], r["seeds"], r["prompts"], r["mask"], r["overlay"], r["cutout"])
    cfg = _lib.SegBatchConfig()
    _lib.seg_batch_config_default(ctypes.byref(cfg))
    for name, v, hi in (("jobs", jobs, 4096), ("per_gpu", per_gpu, 16), ("per_launch", per_launch, 32)):
        if not isinstance(v, int) or isinstance(v, bool) or not (0 if name == "jobs" else 1) <= v <= hi:
            raise ValueError(f"{name} must be an integer up to {hi}, not {v!r}")
    cfg.jobs, cfg.per_gpu, cfg.per_launch, cfg.overwrite = jobs, per_gpu, per_launch, int(bool(overwrite))
    devices = None
    if gpus == "none":
        cfg.ndevices = 0
    elif gpus != "all":
        ids = list(gpus)
        if not ids or any(not isinstance(d, int) or d < 0 for d in ids):
            raise ValueError(f'gpus is "all", "none" or a list of device numbers, not {gpus!r}')
        devices = (ctypes.c_int32 * len(ids))(*ids)
        cfg.ndevices, cfg.devices = len(ids), ctypes.cast(devices, _lib.c_i32p)
    results = [None] * n
    callback_error = []

    def on_report(_user, out):
        o = out.contents
        r = {"image": rows[o.index]["image"].decode(), "mask": rows[o.index]["mask"].decode(),
             "status": "ok" if o.code == 0 else "error",
             "error": o.error.decode("utf-8", "replace") if o.code else None}
        if o.code == 0:
            r.update({"width": o.width, "height": o.height, "flow": o.flow, "foreground_pixels": o.foreground,
                      "engine": "gpu" if o.engine == _lib.MF_ENGINE_GPU else "cpu",
                      "device": (o.device or b"").decode(),
                      "times": {"decode": o.decode_seconds, "model": o.model_seconds, "build": o.build_seconds,
                                "solve": o.solve_seconds, "encode": o.encode_seconds}})
        results[o.index] = r
        if progress is not None and not callback_error:
            try:
                progress(r)
            except BaseException as e:  # raised after the batch, not through C
                callback_error.append(e)

    cfg.report = _lib.SEG_BATCH_REPORT(on_report)
    o = _options("trimap" if trimap else "labels", options)
    try:
        stats, err = _lib.SegBatchStats(), _lib.SegError()
        _lib.seg_check(_lib.seg_batch_run(c_items, n, o, ctypes.byref(cfg), ctypes.byref(stats), ctypes.byref(err)),
                       err)
    finally:
        _lib.seg_options_free(o)
    if callback_error:
        raise callback_error[0]
    return results


__all__ = ["segment", "segment_trimap", "segment_scribbles", "segment_files", "segment_batch", "FlowcutError"]
