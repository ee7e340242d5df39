"""flowcut.Session: the interactive segmentation session (what `flowcut ui`
runs) from Python: seeds edited in place, each cut re-solved warm from the
last one. With refit on (the default) every cut's mask is bit-identical to
flowcut.segment() on the session's current seeds with the same options.
The session's defaults are segment()'s, geodesic prior included; clicks
(click) and a box (box) are painted as `flowcut segment --clicks/--box`
paints them, so one foreground click is enough to cut."""
import ctypes

import numpy as np

from . import _lib
from .problem import _Owned
from .segmentation import _rgb

_SAVE_KINDS = {"mask": _lib.SEG_SAVE_MASK, "overlay": _lib.SEG_SAVE_OVERLAY, "cutout": _lib.SEG_SAVE_CUTOUT,
               "seeds": _lib.SEG_SAVE_SEEDS, "previous": _lib.SEG_SAVE_PREVIOUS}
_LABELS = {"unmarked": 0, "erase": 0, "foreground": 1, "background": 2, 0: 0, 1: 1, 2: 2}


class Session(_Owned):
    """An interactive session on one photo (seeds: an optional label image,
    1 foreground, 2 background). Edit with click(), box(), paint() or
    set_labels(), then cut() for the mask. Each click and each box is one
    undo step, as in `flowcut ui`; strokes (paint, set_labels, clear) undo
    together until commit() closes their step.

        s = flowcut.Session(photo)
        s.click(300, 150); s.cut()                  # s.mask: 255 foreground
        s.click(290, 140, positive=False); s.cut()
        s.undo(); s.cut()                           # the first click's mask again
    """

    def __init__(self, image, seeds=None, *, lambda_=None, connectivity=None, engine="auto",
                 cpu_algorithm="auto", device=0, threads=0, refit=True, geodesic=None, border=None,
                 star=None, keep=None):
        rgb = _rgb(image)
        self.height, self.width = rgb.shape[:2]
        opt = _lib.SessionOptions()
        _lib.seg_session_options_default(ctypes.byref(opt))
        solve = _lib.solve_options(engine, cpu_algorithm, device, threads)
        opt.solve = solve
        if lambda_ is not None:
            if not 0 <= float(lambda_) <= 1e5:
                raise ValueError("lambda needs a number in [0, 100000]")
            opt.graph.lambda_ = float(lambda_)
        if connectivity is not None:
            if connectivity not in (4, 8):
                raise ValueError("connectivity is 4 or 8")
            opt.graph.connectivity = connectivity
        if geodesic is not None:
            if not 0 <= float(geodesic) <= 40:
                raise ValueError("geodesic needs a weight in [0, 40] (nats; 0: off)")
            opt.graph.geodesic = float(geodesic)
        if border is not None:
            if border != "off" and not 0 <= float(border) <= 1000:
                raise ValueError("border needs a distance in [0, 1000] or off")
            opt.graph.border = -1.0 if border == "off" else float(border)
        if keep is not None:
            if not 0 <= float(keep) <= 40:
                raise ValueError("keep needs a weight in [0, 40] (nats; 0: off)")
            opt.graph.keep = float(keep)
        if star is not None:
            if star not in ("on", "off", True, False):
                raise ValueError("star is on or off")
            opt.graph.star = 1 if star in ("on", True) else 0
        opt.graph.threads = threads
        opt.refit = 1 if refit else 0
        labels = None
        if seeds is not None:
            labels = self._labels(seeds)
        s, err = ctypes.c_void_p(), _lib.SegError()
        _lib.seg_check(_lib.seg_session_open(rgb.ctypes.data, self.width, self.height,
                                             labels.ctypes.data if labels is not None else None,
                                             ctypes.byref(opt), ctypes.byref(s), ctypes.byref(err)), err)
        self._handle = s

    @staticmethod
    def _release(s):
        _lib.seg_session_close(s)

    def _labels(self, seeds):
        a = np.asarray(seeds)
        if a.shape != (self.height, self.width) or not np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_:
            raise ValueError(f"seeds must be {self.height} x {self.width} integer labels (0, 1, 2)")
        if a.size and (a.min() < 0 or a.max() > 2):
            raise ValueError("seed labels are 0 (unmarked), 1 (foreground) and 2 (background)")
        return np.ascontiguousarray(a, dtype=np.uint8)

    @staticmethod
    def _label(label):
        if label not in _LABELS:
            raise ValueError(f"label is 'foreground', 'background', 'erase' or 1, 2, 0, not {label!r}")
        return _LABELS[label]

    def paint(self, label, x0, y0, x1, y1, radius=4.0):
        """Paints label along the segment (x0, y0)-(x1, y1) with a round brush."""
        if radius < 0:
            raise ValueError("radius must be >= 0")
        if _lib.seg_session_paint_line(self._live(), self._label(label), x0, y0, x1, y1, radius):
            raise ValueError("paint: coordinates and radius must be finite numbers")

    def click(self, x, y, positive=True, radius=0):
        """A click at pixel (x, y): on the object (positive) or the background.
        When the last cut answered every edit, the click corrects that mask:
        away from the click a pixel keeps its label unless the photo argues
        by more than keep nats (segment(..., previous=that mask)), and its
        disc reaches no farther than the nearest pixel the mask already gives
        its side. radius: the disc's radius in pixels (0: so chosen). Returns
        the radius painted."""
        if not 0 <= int(radius) <= 100000:
            raise ValueError(f"click {x},{y}: radius {radius}: 0 (chosen) to 100000 pixels")
        self.commit()  # strokes painted before it are a step of their own
        r = _lib.seg_session_click_disc(self._live(), int(x), int(y), 1 if positive else 2, int(radius))
        if r < 0:
            raise ValueError(f"click {x},{y}: outside the {self.width}x{self.height} photo")
        self.commit()  # one click, one undo step
        return r

    def box(self, x, y, width, height):
        """GrabCut's box: everything outside it becomes background. A box past
        the photo's edges stands for the part of it on the photo. One undo
        step."""
        self.commit()
        if _lib.seg_session_box(self._live(), int(x), int(y), int(width), int(height)):
            raise ValueError(f"box {x},{y},{width},{height}: empty or outside the photo")
        self.commit()

    @property
    def box_route(self):
        """(x, y, width, height) while the cuts take the box's route (the last
        box, not undone or painted over), else None: the seeds replay to the
        same mask with segment(..., box=...) given this box too."""
        b = (ctypes.c_int32 * 4)()
        return tuple(b) if _lib.seg_session_get_box(self._live(), ctypes.byref(b)) else None

    def set_labels(self, x, y, patch):
        """Sets the labels of a rectangle at (x, y) from a 2-D patch."""
        p = np.asarray(patch)
        if p.ndim != 2 or not np.issubdtype(p.dtype, np.integer) or (p.size and (p.min() < 0 or p.max() > 2)):
            raise ValueError("patch must be 2-D labels in 0..2")
        p = np.ascontiguousarray(p, dtype=np.uint8)
        if _lib.seg_session_set_labels(self._live(), x, y, p.shape[1], p.shape[0], p.ctypes.data, p.shape[1]):
            raise ValueError("set_labels: the rectangle leaves the photo")

    @property
    def seeds(self):
        """The current seed labels (a copy)."""
        return np.ctypeslib.as_array(_lib.seg_session_labels(self._live()), shape=(self.height, self.width)).copy()

    @seeds.setter
    def seeds(self, labels):
        a = self._labels(labels)
        _lib.seg_session_set_all_labels(self._live(), a.ctypes.data)

    @property
    def lambda_(self):
        return _lib.seg_session_lambda(self._live())

    @lambda_.setter
    def lambda_(self, value):
        if _lib.seg_session_set_lambda(self._live(), float(value)):
            raise ValueError("lambda needs a number in [0, 100000]")

    def set_refit(self, refit):
        """Off, a cut keeps the colour models and changes only the edited
        pixels (the quick answer); on, it re-fits them as segment() does."""
        _lib.seg_session_set_refit(self._live(), 1 if refit else 0)

    @property
    def refine_pending(self):
        """True when a cut with refit on has work for the quick cuts to come:
        the models are stale, or the last answer kept no flow for their warm
        repair. An interactive front end makes that cut while the user looks
        at the quick answer."""
        return bool(_lib.seg_session_refine_pending(self._live()))

    def commit(self):
        """Closes the undo step: the edits since the last commit undo together."""
        _lib.seg_check(_lib.seg_session_commit(self._live()), _lib.SegError())

    def undo(self):
        """Takes back the last step (the edits not yet committed first);
        False when there was none. The next cut gives that step's mask back."""
        rc = _lib.seg_session_undo(self._live())
        _lib.seg_check(min(rc, 0), _lib.SegError())
        return rc == 1

    def redo(self):
        """Brings back the last undone step; False when there was none."""
        rc = _lib.seg_session_redo(self._live())
        _lib.seg_check(min(rc, 0), _lib.SegError())
        return rc == 1

    def cut(self):
        """Brings the mask up to date (warm when it can); returns its stats.
        Raises FlowcutError while either region has no seed."""
        st, err = _lib.CutStats(), _lib.SegError()
        _lib.seg_check(_lib.seg_session_cut(self._live(), ctypes.byref(st), ctypes.byref(err)), err)
        return {"warm": bool(st.warm), "refitted": bool(st.refitted), "flow": st.flow,
                "foreground_pixels": st.foreground, "changed_pixels": st.changed_pixels,
                "seconds": st.total_seconds, "solve_seconds": st.solve_seconds,
                "engine": "gpu" if st.engine == _lib.MF_ENGINE_GPU else "cpu", "device": st.device.decode()}

    def preview(self):
        """A quick look at the next cut: segment()'s answer on the photo
        shrunk to at most 150,000 pixels, each block's answer given to its
        pixels (uint8, 255 foreground). Changes nothing in the session; worth
        it where preview_pays (0.8 Mpx or more, where a click's cut takes a
        fraction of a second). Raises FlowcutError while no seed is given."""
        out = np.zeros((self.height, self.width), np.uint8)
        st, err = _lib.CutStats(), _lib.SegError()
        _lib.seg_check(_lib.seg_session_preview(self._live(), out.ctypes.data, ctypes.byref(st), ctypes.byref(err)),
                       err)
        return out

    @property
    def preview_pays(self):
        """True on a photo large enough for preview() to come several times
        sooner than cut()."""
        return bool(_lib.seg_session_preview_pays(self._live()))

    @property
    def mask(self):
        """The last cut's mask (a copy): 255 foreground, 0 background."""
        return np.ctypeslib.as_array(_lib.seg_session_mask(self._live()), shape=(self.height, self.width)).copy()

    @property
    def previous(self):
        """(x, y, positive) of the last click while the cuts correct the mask
        before it, else None: the seeds then replay as segment(seeds,
        clicks=[(x, y, positive)], previous=that mask), which
        save(path, "previous") writes."""
        c = _lib.SegClick()
        if not _lib.seg_session_get_previous(self._live(), ctypes.byref(c)):
            return None
        return (c.x, c.y, c.label == 1)

    def save(self, path, kind="mask", overwrite=False):
        """Writes the mask, overlay, cutout, seeds or previous (the mask the
        last click corrects) as PNG (atomically)."""
        if kind not in _SAVE_KINDS:
            raise ValueError(f"kind is one of {sorted(_SAVE_KINDS)}")
        err = _lib.SegError()
        _lib.seg_check(_lib.seg_session_save(self._live(), _SAVE_KINDS[kind], str(path).encode(),
                                             1 if overwrite else 0, ctypes.byref(err)), err)


__all__ = ["Session"]
