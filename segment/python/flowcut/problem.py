"""Max-flow problems in DIMACS form: solve on any engine, and re-solve
warm after capacity changes (flowcut's mf_dynamic)."""
import ctypes

import numpy as np

from . import _lib


class Result:
    """value: the maximum flow; source_side: bool array per vertex (the
    canonical minimum cut: vertices that cannot reach the sink); engine,
    device, seconds (engine time) and warm (re-solved from the last flow)."""

    def __init__(self, res):
        st = res.stats
        self.value = int(res.flow_value)
        self.source_side = np.ctypeslib.as_array(res.source_side, shape=(res.num_vertices,)).astype(bool)
        self.engine = "gpu" if st.engine_used == 2 else "cpu"
        self.device = st.device_name.decode()
        self.seconds = st.solve_seconds
        self.warm = bool(st.warm)

    def __repr__(self):
        return f"Result(value={self.value}, engine={self.engine!r}, warm={self.warm})"


class _Owned:
    """Holds a C object released by close(), at exit of a with block, or
    when garbage-collected."""

    def close(self):
        if getattr(self, "_handle", None) is not None:
            self._release(self._handle)
            self._handle = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if getattr(self, "_handle", None) is None:
            raise ValueError(f"the {type(self).__name__.lower()} is closed")
        return self._handle


class Problem(_Owned):
    """A DIMACS max-flow problem (vertices 0-based here)."""

    def __init__(self, path):
        lst, err = _lib.MfArclist(), _lib.MfError()
        rc = _lib.mf_read_dimacs(str(path).encode(), ctypes.byref(lst), ctypes.byref(err))
        _lib.mf_check(rc, err)
        try:
            g = _lib.MfGraph()
            rc = _lib.mf_graph_from_arcs(ctypes.byref(lst), None, ctypes.byref(g), ctypes.byref(err))
            _lib.mf_check(rc, err)
            self._handle = g
            self.num_vertices = lst.num_vertices
            self.num_arcs = lst.num_arcs
            self.source, self.sink = lst.source, lst.sink
        finally:
            _lib.mf_arclist_free(ctypes.byref(lst))

    @staticmethod
    def _release(g):
        _lib.mf_graph_free(ctypes.byref(g))

    def _graph(self):
        return ctypes.byref(self._live())

    def maxflow(self, engine="auto", cpu_algorithm="auto", device=0, threads=0):
        """Solves; returns a Result."""
        opt = _lib.solve_options(engine, cpu_algorithm, device, threads)
        res, err = _lib.MfResult(), _lib.MfError()
        _lib.mf_check(_lib.mf_solve(self._graph(), ctypes.byref(opt), ctypes.byref(res), ctypes.byref(err)), err)
        try:
            return Result(res)
        finally:
            _lib.mf_result_free(ctypes.byref(res))

    def dynamic(self, engine="auto", device=0):
        """A warm re-solver of this problem (a copy: the problem is unchanged)."""
        return Dynamic(self, engine, device)


class Dynamic(_Owned):
    """Warm re-solve: change capacities of input arcs (0-based, in the
    order of the file's 'a' lines), then solve() again; the solver repairs
    its last flow instead of starting over, and gives the value and cut a
    cold solve of the changed problem gives."""

    def __init__(self, problem, engine="auto", device=0):
        opt = _lib.solve_options(engine, "auto", device)
        d, err = ctypes.c_void_p(), _lib.MfError()
        self.num_arcs = problem.num_arcs
        _lib.mf_check(_lib.mf_dynamic_create(problem._graph(), ctypes.byref(opt), ctypes.byref(d),
                                             ctypes.byref(err)), err)
        self._handle = d

    @staticmethod
    def _release(d):
        _lib.mf_dynamic_destroy(d)

    def set_capacity(self, arc, cap):
        """Input arc arc (0-based) gets capacity cap from the next solve."""
        self.set_capacities([arc], [cap])

    def set_capacities(self, arcs, caps):
        arcs, caps = np.broadcast_arrays(np.asarray(arcs), np.asarray(caps))
        if not np.issubdtype(arcs.dtype, np.integer) or not np.issubdtype(caps.dtype, np.integer):
            raise TypeError("arcs and capacities must be integers")
        if arcs.size and (arcs.min() < 0 or arcs.max() >= self.num_arcs):
            raise IndexError(f"arc index out of range 0..{self.num_arcs - 1}")
        if caps.size and (caps.min() < 0 or caps.max() > 2**31 - 1):
            raise ValueError("capacities must be in 0..2147483647")
        d, err = self._live(), _lib.MfError()
        for a, c in zip(arcs.ravel().tolist(), caps.ravel().tolist()):
            _lib.mf_check(_lib.mf_dynamic_set_input_arc(d, a, c, ctypes.byref(err)), err)

    def solve(self):
        """Solves (cold the first time, warm after); returns a Result."""
        res, err = _lib.MfResult(), _lib.MfError()
        _lib.mf_check(_lib.mf_dynamic_solve(self._live(), ctypes.byref(res), ctypes.byref(err)), err)
        try:
            return Result(res)
        finally:
            _lib.mf_result_free(ctypes.byref(res))


def read_dimacs(path):
    return Problem(path)


__all__ = ["Problem", "Dynamic", "Result", "read_dimacs"]
