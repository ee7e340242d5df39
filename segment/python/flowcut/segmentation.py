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
    background, or the text form "X,Y -X,Y ...") and box (x, y, w, h);
    None when there are neither. Free with _lib.seg_prompts_free."""
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
            for c in clicks:
                if len(c) not in (2, 3):
                    raise ValueError(f"a click is (x, y) or (x, y, positive), not {c!r}")
                label = 1 if len(c) == 2 or c[2] else 2
                if _lib.seg_prompts_add_click(p, int(c[0]), int(c[1]), label, ctypes.byref(err)):
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


def _run(image, seeds, seeds_kind, return_info, options, clicks=None, box=None):
    rgb = _rgb(image)
    sd = _seeds(seeds, rgb.shape) if seeds is not None else None
    if sd is None and clicks is None and box is None:
        raise ValueError("give seeds, clicks or a box")
    o = _options(seeds_kind, options)
    p = None
    try:
        p = _prompts(clicks, box)
        _lib.seg_options_set_prompts(o, p)
        h, w = rgb.shape[:2]
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
            "build_seconds": info.build_seconds, "solve_seconds": info.solve_seconds}


def segment(image, seeds=None, *, clicks=None, box=None, return_info=False, **options):
    """Segments image (H x W x 3 uint8 RGB; grey and RGBA are accepted) with
    seed labels (H x W: 1 foreground, 2 background, 0 unmarked; an
    H x W x 3 array is read as red/blue scribbles), clicks or a box, or
    any of them together: clicks=[(x, y), (x, y, False), ...] (foreground
    unless the third item is False; or the text form "X,Y -X,Y"), box=(x,
    y, width, height) (all outside it is background). One foreground click
    is enough: the photo's border stands in for the background. Returns
    the mask, H x W uint8, 255 foreground and 0 background: the same bits
    as `flowcut segment`. With return_info, (mask, dict of flow, engine,
    times). Raises FlowcutError (e.g. no foreground seed) or ValueError."""
    return _run(image, seeds, "labels", return_info, options, clicks, box)


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


__all__ = ["segment", "segment_trimap", "segment_scribbles", "segment_files", "FlowcutError"]
