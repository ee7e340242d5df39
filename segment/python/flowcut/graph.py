"""flowcut.Graph: a general s-t graph with PyMaxflow's calls (add_nodes,
add_edge, add_tedge, add_grid_edges/add_grid_tedges on N-D node arrays,
maxflow, get_segment, get_grid_segments), solved by flowcut's engines.

PyMaxflow code runs with its import line changed: Graph[int] and
Graph[float] are the two capacity types.

- Graph[int] (and Graph()): capacities are integers, solved exactly (int32
  per arc direction, 64-bit terminal sums and flow). Fractional values are
  an error unless the graph has a scale: Graph(scale=1000) multiplies every
  capacity by 1000 and rounds, and maxflow() divides the flow back.
- Graph[float]: any finite capacities. maxflow() scales them by the largest
  power of two that keeps every arc within int32 and the terminal sums
  within int64; a power of two changes no mantissa, so capacities with at
  most about 31 significant bits (0.5, 0.25, 1.75, whole numbers) are
  solved exactly and `exact` is True after the solve. Otherwise each arc
  is rounded by at most 2**-32 of the largest one, the cut is optimal for
  the rounded capacities, `exact` is False, and maxflow() returns that
  cut's value summed from the capacities as given.
Terminal capacities may be negative in both (as in PyMaxflow): only the
difference of a node's two terminal capacities decides its side, so the
smaller is subtracted from both and added back to the flow."""
import ctypes
import itertools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _lib

INT32_MAX = 2**31 - 1


def neighbourhood(ndim, connectivity=None):
    """The structure array (3 x 3 x ... ) of a neighbourhood: in 2-D 4 or 8
    neighbours, in 3-D 6, 18 or 26; in general the offsets whose
    non-zero components number at most k, for the k giving that count
    (default: the 2 * ndim face neighbours)."""
    if ndim < 1:
        raise ValueError("ndim must be at least 1")
    counts = {}
    for k in range(1, ndim + 1):
        counts[sum(1 for d in itertools.product((-1, 0, 1), repeat=ndim) if 0 < sum(map(abs, d)) <= k)] = k
    if connectivity is None:
        connectivity = 2 * ndim
    if connectivity not in counts:
        raise ValueError(f"connectivity {connectivity} is none of {sorted(counts)} in {ndim}-D")
    k = counts[connectivity]
    s = np.zeros((3,) * ndim, np.int64)
    for d in itertools.product((-1, 0, 1), repeat=ndim):
        if 0 < sum(map(abs, d)) <= k:
            s[tuple(x + 1 for x in d)] = 1
    return s


neighborhood = neighbourhood


def _half(structure, directed):
    """structure as PyMaxflow's floats; directed keeps the offsets after the
    centre in the array's flat order: of each offset and its opposite, one
    (the half that add_grid_edges with symmetric=True takes)."""
    s = structure.astype(np.float64)
    if directed:
        s.reshape(-1)[:s.size // 2] = 0
    return s


def vonNeumann_structure(ndim=2, directed=False):
    """PyMaxflow's face-neighbour structure (3 x 3 x ...); directed: the
    offsets +1 along each axis alone."""
    return _half(neighbourhood(ndim), directed)


def moore_structure(ndim=2, directed=False):
    """PyMaxflow's all-neighbour structure (3**ndim - 1 neighbours)."""
    return _half(neighbourhood(ndim, 3**ndim - 1), directed)


def _pairs_network(n, tail, head, cap, rcap, src, snk):
    """The C network of n nodes from contiguous pair arrays (int32) and
    terminal capacities (int64); free it with _lib.mf_graph_free."""
    g, err = _lib.MfGraph(), _lib.MfError()
    rc = _lib.mf_graph_from_pairs(n, len(tail), tail.ctypes.data, head.ctypes.data, cap.ctypes.data,
                                  rcap.ctypes.data, src.ctypes.data, snk.ctypes.data, ctypes.byref(g),
                                  ctypes.byref(err))
    _lib.mf_check(rc, err)
    return g


def _either(value, pymaxflow_value, what):
    """A capacity given by flowcut's name or PyMaxflow's, not both."""
    if value is not None and pymaxflow_value is not None:
        raise TypeError(f"{what} given twice")
    value = value if value is not None else pymaxflow_value
    if value is None:
        raise TypeError(f"{what} missing")
    return value


class Graph:
    """Nodes are numbered from 0 in the order they are added."""

    def __init__(self, nodes_hint=0, edges_hint=0, scale=None, *, est_node_num=None, est_edge_num=None):
        # est_node_num, est_edge_num: PyMaxflow's names of the two hints
        nodes_hint = est_node_num if est_node_num is not None else nodes_hint
        if scale is not None and not (isinstance(scale, (int, float)) and scale > 0):
            raise ValueError(f"scale must be a positive number, not {scale!r}")
        self.scale = scale
        self._n = 0
        self._edges = []  # (tail, head, cap, rcap) int64 arrays
        self._num_edges = 0
        self._src = np.zeros(max(int(nodes_hint), 0), np.int64)
        self._snk = np.zeros(max(int(nodes_hint), 0), np.int64)
        self._side = None
        self._offset = 0
        self.flow = None
        # the last solve: engine, device, solve_seconds, setup_seconds (CPU)
        # and cpu_algorithm (what ran, auto's pick; None on the GPU); BK's
        # blocks, work_seconds (their searches summed) and critical_seconds
        # (the longest chain of merges that waited for each other)
        self.stats = {}

    def __class_getitem__(cls, kind):
        """Graph[int] or Graph[float], PyMaxflow's two graph types."""
        if kind is int:
            return GraphInt
        if kind is float:
            return GraphFloat
        raise TypeError(f"Graph[...] takes int or float, not {kind!r}")

    # -- nodes
    def add_nodes(self, num_nodes):
        """Adds num_nodes nodes; returns their ids (an int64 array)."""
        num_nodes = int(num_nodes)
        if num_nodes < 0:
            raise ValueError("num_nodes must be >= 0")
        if self._n + num_nodes > INT32_MAX - 2:
            raise ValueError("too many nodes for flowcut (at most 2147483645)")
        first = self._n
        self._n += num_nodes
        if self._n > len(self._src):
            grow = max(self._n, 2 * len(self._src))
            self._src = np.concatenate([self._src, np.zeros(grow - len(self._src), np.int64)])
            self._snk = np.concatenate([self._snk, np.zeros(grow - len(self._snk), np.int64)])
        self._side = None
        return np.arange(first, self._n, dtype=np.int64)

    def add_node(self):
        return int(self.add_nodes(1)[0])

    def add_grid_nodes(self, shape):
        """Adds prod(shape) nodes; returns their ids shaped as shape."""
        shape = tuple(int(x) for x in np.atleast_1d(shape))
        return self.add_nodes(int(np.prod(shape))).reshape(shape)

    def get_node_num(self):
        return self._n

    def get_edge_num(self):
        return self._num_edges

    get_node_count = get_node_num
    get_edge_count = get_edge_num

    def reset(self):
        """Removes every node and edge."""
        self.__init__(scale=self.scale)

    # -- capacities
    def _caps(self, c, what, signed=False):
        a = np.asarray(c)
        if a.dtype == np.bool_:
            a = a.astype(np.int64)  # a mask as 0 / 1 capacities, as PyMaxflow casts it
        if not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)):
            raise TypeError(f"{what} must be numbers, not {a.dtype}")
        if np.issubdtype(a.dtype, np.floating):
            if not np.all(np.isfinite(a)):
                raise ValueError(f"{what} must be finite")
            if self.scale is not None:
                a = np.rint(a * self.scale)
            elif np.any(a != np.floor(a)):
                raise ValueError(f"{what} must be whole numbers (flowcut solves exactly in integers); "
                                 "use Graph(scale=...) for fractional capacities")
        elif self.scale is not None:
            a = a.astype(np.float64) * self.scale
            a = np.rint(a)
        if a.size and a.min() < 0 and not signed:
            raise ValueError(f"{what} must be >= 0")
        if a.size and np.abs(a).max() >= 2**62:
            raise ValueError(f"{what} too large")
        return a.astype(np.int64)

    # whether a capacity may be +inf (Graph[float]: an arc no cut may take)
    _infinite = False

    def _numbers(self, c, what, signed=False):
        """c as a numeric array, unconverted (no scale, no rounding)."""
        a = np.asarray(c)
        if a.dtype == np.bool_:
            a = a.astype(np.int64)
        if not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)):
            raise TypeError(f"{what} must be numbers, not {a.dtype}")
        if np.issubdtype(a.dtype, np.floating) and not np.all(np.isfinite(a) | (self._infinite & (a == np.inf))):
            raise ValueError(f"{what} must be finite" + (" or +inf" if self._infinite else
                                                          " (Graph[float] takes +inf: an arc no cut may take)"))
        if a.size and a.min() < 0 and not signed:
            raise ValueError(f"{what} must be >= 0")
        return a

    def _ids(self, ids, what):
        a = np.asarray(ids)
        if not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"{what} must be node ids (integers), not {a.dtype}")
        a = a.astype(np.int64)
        if a.size and (a.min() < 0 or a.max() >= self._n):
            raise IndexError(f"{what}: node id out of range 0..{self._n - 1}")
        return a

    def add_edges(self, i, j, cap=None, rev_cap=None, *, capacity=None, rev_capacity=None):
        """Vectorised add_edge: arrays (or scalars) broadcast together
        (capacity, rev_capacity: PyMaxflow's names)."""
        cap, rev_cap = _either(cap, capacity, "cap"), _either(rev_cap, rev_capacity, "rev_cap")
        self._add_edges(self._ids(i, "i"), self._ids(j, "j"), self._caps(cap, "cap"), self._caps(rev_cap, "rev_cap"))

    # The _add_* methods take capacities already converted by _caps: the
    # scale is applied exactly once, where a capacity enters from the caller.
    def _add_edges(self, i, j, cap, rev_cap):
        i, j, cap, rev_cap = np.broadcast_arrays(i, j, cap, rev_cap)
        if i.size and (cap.max() > INT32_MAX or rev_cap.max() > INT32_MAX or (cap + rev_cap).max() > INT32_MAX):
            raise ValueError("an edge's cap + rev_cap exceeds 2147483647")
        keep = i != j  # self-loops carry no flow
        e = tuple(np.ascontiguousarray(x[keep].ravel(), dtype=np.int32) for x in (i, j, cap, rev_cap))
        if e[0].size:
            self._edges.append(e)
            self._num_edges += e[0].size
        self._side = None

    def add_edge(self, i, j, cap=None, rev_cap=None, *, capacity=None, rcapacity=None):
        """Edge i -> j with capacity cap, j -> i with rev_cap (capacity,
        rcapacity: PyMaxflow's names)."""
        if not (np.isscalar(i) and np.isscalar(j)):
            raise TypeError("add_edge takes single node ids; use add_edges for arrays")
        self.add_edges(i, j, _either(cap, capacity, "cap"), _either(rev_cap, rcapacity, "rev_cap"))

    def add_tedges(self, i, cap_source, cap_sink):
        """Vectorised add_tedge; repeated calls on a node add up."""
        self._add_tedges(self._ids(i, "i"), self._caps(cap_source, "cap_source", True),
                         self._caps(cap_sink, "cap_sink", True))

    def _add_tedges(self, i, cs, ct):
        i, cs, ct = np.broadcast_arrays(i, cs, ct)
        np.add.at(self._src, i.ravel(), cs.ravel())
        np.add.at(self._snk, i.ravel(), ct.ravel())
        self._side = None

    def add_tedge(self, i, cap_source, cap_sink):
        """Terminal edges source -> i (cap_source) and i -> sink (cap_sink)."""
        if not np.isscalar(i):
            raise TypeError("add_tedge takes a single node id; use add_tedges or add_grid_tedges for arrays")
        self.add_tedges(i, cap_source, cap_sink)

    def add_grid_tedges(self, nodeids, sourcecaps, sinkcaps):
        """Terminal edges of a node array; capacities broadcast to its shape."""
        nodeids = self._ids(nodeids, "nodeids")
        self._add_tedges(nodeids, np.broadcast_to(self._caps(sourcecaps, "sourcecaps", True), nodeids.shape),
                         np.broadcast_to(self._caps(sinkcaps, "sinkcaps", True), nodeids.shape))

    def add_grid_edges(self, nodeids, weights=1, structure=None, symmetric=False, periodic=False):
        """Edges between each node of the N-D array nodeids and its
        neighbours: every non-zero entry of structure (an array of odd
        sides, 3 x 3 x ... by default the face neighbours, see
        neighbourhood()) at offset d from its centre gives the edge
        p -> p + d with capacity weights[p] * structure[d] (weights
        broadcast to nodeids' shape); with symmetric, p + d -> p gets the
        same. Edges leaving the array are dropped, unless periodic (a bool,
        or one per axis) wraps them around that axis. A node id of -1 is no
        node: its edges are dropped. Each neighbour pair becomes one two-way
        arc."""
        nodeids = np.asarray(nodeids)
        if np.issubdtype(nodeids.dtype, np.integer) and nodeids.size and nodeids.min() < 0:
            # PyMaxflow's -1: no node there, no edge to it
            present = nodeids >= 0
            nodeids = self._ids(np.where(present, nodeids, 0), "nodeids")
        else:
            nodeids = self._ids(nodeids, "nodeids")
            present = None
        nd = nodeids.ndim
        if structure is None:
            # PyMaxflow's default: with symmetric each pair once (it adds both ways)
            structure = vonNeumann_structure(nd, directed=symmetric)
        # capacities are weights * structure in the caller's numbers, then
        # converted (and scaled) once per arc by _caps
        st = self._numbers(structure, "structure")
        if st.ndim != nd or any(s % 2 == 0 for s in st.shape):
            raise ValueError(f"structure must have {nd} dimensions of odd sides, not shape {st.shape}")
        w = np.broadcast_to(self._numbers(weights, "weights"), nodeids.shape)
        wrap = np.broadcast_to(np.asarray(periodic, bool), (nd,))
        if wrap.any():
            return self._add_wrapped_edges(nodeids, present, w, st, symmetric, wrap)
        centre = tuple(s // 2 for s in st.shape)
        done = set()
        for idx in zip(*np.nonzero(st)):
            d = tuple(int(a) - c for a, c in zip(idx, centre))
            neg = tuple(-x for x in d)
            if d in done or not any(d):
                continue
            done.add(d)
            done.add(neg)
            # the pair p -> q = p + d, merged with the edges of offset -d
            if any(abs(x) >= n for x, n in zip(d, nodeids.shape)):
                continue
            ps = tuple(slice(0, n - x) if x >= 0 else slice(-x, n) for x, n in zip(d, nodeids.shape))
            qs = tuple(slice(x, n) if x >= 0 else slice(0, n + x) for x, n in zip(d, nodeids.shape))
            s_d = st[idx]
            nidx = tuple(c - x for c, x in zip(centre, d))
            s_neg = st[nidx] if all(0 <= k < n for k, n in zip(nidx, st.shape)) else 0
            a = self._arc_caps(w[ps], s_d)    # p -> q from offset d
            b = self._arc_caps(w[qs], s_neg)  # q -> p from offset -d
            along, against = (a + b, a + b) if symmetric else (a, b)
            if present is not None:
                both = present[ps] & present[qs]
                along, against = np.broadcast_to(along, both.shape)[both], np.broadcast_to(against, both.shape)[both]
                self._add_edges(nodeids[ps][both], nodeids[qs][both], along, against)
            else:
                self._add_edges(nodeids[ps], nodeids[qs], along, against)

    def _arc_caps(self, weights, s):
        """The capacities weights * s of one structure offset, converted by
        _caps; 0 * inf is no arc (not nan)."""
        with np.errstate(invalid="ignore"):
            return self._caps(np.nan_to_num(weights * s, nan=0.0, posinf=np.inf), "weights")

    def _add_wrapped_edges(self, nodeids, present, w, st, symmetric, wrap):
        """add_grid_edges with axes that wrap: p -> q = p + d taken modulo
        the shape along them, one arc each (a pair is not merged)."""
        centre = tuple(s // 2 for s in st.shape)
        for idx in zip(*np.nonzero(st)):
            d = tuple(int(a) - c for a, c in zip(idx, centre))
            if not any(d):
                continue
            q, valid = nodeids, np.ones(nodeids.shape, bool) if present is None else present.copy()
            for axis, x in enumerate(d):
                if x and wrap[axis]:
                    q = np.roll(q, -x, axis=axis)
                    if present is not None:
                        valid &= np.roll(present, -x, axis=axis)
                elif x:  # no wrap: the last |x| along the axis have no neighbour there
                    if abs(x) >= q.shape[axis]:
                        valid[...] = False
                        continue
                    q = np.roll(q, -x, axis=axis)
                    cut = [slice(None)] * q.ndim
                    cut[axis] = slice(q.shape[axis] - x, None) if x > 0 else slice(0, -x)
                    valid[tuple(cut)] = False
                    if present is not None:
                        valid &= np.roll(present, -x, axis=axis)
            cap = np.broadcast_to(self._arc_caps(w, st[idx]), nodeids.shape)[valid]
            self._add_edges(nodeids[valid], q[valid], cap, cap if symmetric else np.zeros_like(cap))

    # -- solving
    def _network(self):
        """This graph as a C network (free it with _lib.mf_graph_free)."""
        if self._edges:
            cols = [np.concatenate([e[k] for e in self._edges]) for k in range(4)]
            self._edges = [tuple(cols)]
        else:
            cols = [np.zeros(0, np.int32)] * 4
        tail, head, cap, rcap = (np.ascontiguousarray(c, dtype=np.int32) for c in cols)
        src, snk, self._offset = self._terminals()
        return _pairs_network(self._n, tail, head, cap, rcap, src, snk)

    def _terminals(self):
        """The terminal capacities the engines get, and the flow they leave
        out: with a negative capacity the smaller of a node's two is taken
        from both (its side depends only on their difference)."""
        src, snk = self._src[:self._n], self._snk[:self._n]
        if not self._n or min(src.min(), snk.min()) >= 0:
            return np.ascontiguousarray(src), np.ascontiguousarray(snk), 0
        low = np.minimum(src, snk)
        return np.ascontiguousarray(src - low), np.ascontiguousarray(snk - low), int(low.sum())

    def _take(self, res, g):
        """Keeps a solve's value, cut and stats; returns the flow."""
        side = np.ctypeslib.as_array(res.source_side, shape=(g.num_vertices,))
        self._side = side[:self._n].astype(bool)
        st = res.stats
        alg = _lib.cpu_algorithm_name(st.cpu_algorithm)
        self.stats = {"engine": "gpu" if st.engine_used == 2 else "cpu",
                      "device": st.device_name.decode(), "solve_seconds": st.solve_seconds,
                      "setup_seconds": st.setup_seconds, "cpu_algorithm": alg,
                      "blocks": int(st.rounds) if alg == "bk" else None,
                      "work_seconds": st.work_seconds, "critical_seconds": st.critical_seconds}
        flow = int(res.flow_value) + self._offset
        self.flow = flow / self.scale if self.scale is not None else flow
        return self.flow

    def maxflow(self, engine="auto", cpu_algorithm="auto", device=0, threads=0, *, reuse_trees=False):
        """Solves; returns the maximum flow (divided by scale when the
        graph has one). engine: auto (the GPU when usable), cpu or gpu;
        threads: CPU threads (0: every core; the cut does not depend on it).
        PyMaxflow's reuse_trees (also given first, as maxflow(True)) is taken
        and has no effect: every solve is exact from the graph as it is."""
        if isinstance(engine, bool):  # PyMaxflow's maxflow(reuse_trees)
            engine = "auto"
        opt = _lib.solve_options(engine, cpu_algorithm, device, threads)
        g = self._network()
        try:
            err, res = _lib.MfError(), _lib.MfResult()
            rc = _lib.mf_solve(ctypes.byref(g), ctypes.byref(opt), ctypes.byref(res), ctypes.byref(err))
            _lib.mf_check(rc, err)
            try:
                return self._take(res, g)
            finally:
                _lib.mf_result_free(ctypes.byref(res))
        finally:
            _lib.mf_graph_free(ctypes.byref(g))

    def _need_cut(self):
        if self._side is None:
            raise RuntimeError("call maxflow() first (the graph changed or was never solved)")

    def get_segment(self, i):
        """0 when node i is on the source side of the minimum cut, 1 on the
        sink side (nodes that still reach the sink: the canonical cut)."""
        self._need_cut()
        i = self._ids(i, "i")
        return int(not self._side[int(i)])

    def get_grid_segments(self, nodeids):
        """Boolean array shaped as nodeids: True on the sink side."""
        self._need_cut()
        return ~self._side[self._ids(nodeids, "nodeids")]


class GraphInt(Graph):
    """Graph[int]: integer capacities, solved exactly."""

    def __init__(self, nodes_hint=0, edges_hint=0, *, est_node_num=None, est_edge_num=None):
        super().__init__(nodes_hint, edges_hint, est_node_num=est_node_num, est_edge_num=est_edge_num)

    def reset(self):
        self.__init__()


class GraphFloat(Graph):
    """Graph[float]: real capacities, scaled by a power of two at each solve
    (see the module's text); `exact` says whether that scaling was lossless.
    A capacity of +inf (PyMaxflow's way to forbid a cut) becomes, at each
    solve, twice the sum of every finite capacity, which no minimum cut
    takes while a finite one exists."""

    _infinite = True

    def __init__(self, nodes_hint=0, edges_hint=0, *, est_node_num=None, est_edge_num=None):
        super().__init__(nodes_hint, edges_hint, est_node_num=est_node_num, est_edge_num=est_edge_num)
        self._src = self._src.astype(np.float64)
        self._snk = self._snk.astype(np.float64)
        self._power = 0
        self.exact = None

    def reset(self):
        self.__init__()

    def _caps(self, c, what, signed=False):
        a = self._numbers(c, what, signed).astype(np.float64)
        return a

    def add_nodes(self, num_nodes):
        ids = super().add_nodes(num_nodes)
        self._src = self._src.astype(np.float64, copy=False)
        self._snk = self._snk.astype(np.float64, copy=False)
        return ids

    def _add_edges(self, i, j, cap, rev_cap):
        i, j, cap, rev_cap = np.broadcast_arrays(i, j, cap, rev_cap)
        keep = i != j
        e = (np.ascontiguousarray(i[keep].ravel(), dtype=np.int32), np.ascontiguousarray(j[keep].ravel(), dtype=np.int32),
             np.ascontiguousarray(cap[keep].ravel(), dtype=np.float64),
             np.ascontiguousarray(rev_cap[keep].ravel(), dtype=np.float64))
        if e[0].size:
            self._edges.append(e)
            self._num_edges += e[0].size
        self._side = None

    def _network(self):
        """The graph scaled by 2**power to integers (see the module's text)."""
        if self._edges:
            cols = [np.concatenate([e[k] for e in self._edges]) for k in range(4)]
            self._edges = [tuple(cols)]
        else:
            cols = [np.zeros(0, np.int32)] * 2 + [np.zeros(0, np.float64)] * 2
        src, snk = self._src[:self._n], self._snk[:self._n]
        parts = (cols[2], cols[3], src, snk)
        if any(np.isinf(x).any() for x in parts):  # +inf: more than every finite capacity together
            big = 2.0 * sum(float(np.abs(x[np.isfinite(x)]).sum()) for x in parts) + 1.0
            cols[2], cols[3], src, snk = (np.where(np.isinf(x), big, x) for x in parts)
        low = np.minimum(src, snk) if self._n else np.zeros(0)
        tsrc, tsnk = src - low, snk - low
        both = cols[2] + cols[3]
        arc_max = float(both.max()) if both.size else 0.0
        term_max = float(max(tsrc.max(), tsnk.max())) if self._n else 0.0
        # the largest power of two with every arc's two directions and every
        # terminal arc within int32, as the engines take them
        top = max(arc_max, term_max)
        power = 60 if top == 0 else int(np.floor(np.log2((2**31 - 1) / top)))
        while power > -1000 and np.rint(top * 2.0**power) > 2**31 - 1:
            power -= 1  # log2's rounding
        f = 2.0**power
        scaled = [np.rint(x * f) for x in (cols[2], cols[3], tsrc, tsnk)]
        self.exact = all(np.array_equal(a, x * f) for a, x in zip(scaled, (cols[2], cols[3], tsrc, tsnk)))
        cap, rcap = (np.ascontiguousarray(a, dtype=np.int64) for a in scaled[:2])
        over = cap + rcap > 2**31 - 1  # rounding up both directions of one arc
        if over.any():
            rcap[over] = 2**31 - 1 - cap[over]
        cap, rcap = cap.astype(np.int32), rcap.astype(np.int32)
        tail, head = (np.ascontiguousarray(c, dtype=np.int32) for c in cols[:2])
        s_int, t_int = (np.ascontiguousarray(a, dtype=np.int64) for a in scaled[2:])
        self._power, self._low = power, low
        return _pairs_network(self._n, tail, head, cap, rcap, s_int, t_int)

    def _take(self, res, g):
        super()._take(res, g)
        if self.exact:
            self.flow = (int(res.flow_value) / 2.0**self._power) + float(self._low.sum())
        else:
            self.flow = self._cut_value()
        return self.flow

    def _cut_value(self):
        """The cut's capacity from the capacities as given (float64 sums)."""
        sink_side = ~self._side
        src, snk = self._src[:self._n], self._snk[:self._n]
        value = float(src[sink_side].sum() + snk[~sink_side].sum())
        if self._edges:
            tail, head, cap, rcap = self._edges[0]
            value += float(cap[self._side[tail] & sink_side[head]].sum() + rcap[sink_side[tail] & self._side[head]].sum())
        return value


def _launches(graphs):
    """The graphs in runs of one GPU launch each, as the library groups them
    (mf_gpu_launch_takes): each run is built while the one before solves."""
    run, nodes = [], 0
    for g in graphs:
        if run and not _lib.mf_gpu_launch_takes(len(run), nodes, g._n + 2, _lib.MF_GPU_MANY_MAX):
            yield run
            run, nodes = [], 0
        run.append(g)
        nodes += g._n + 2
    if run:
        yield run


def maxflow_many(graphs, engine="auto", cpu_algorithm="auto", device=0, threads=0):
    """Solves every graph; returns their flows, and each graph answers
    get_segment / get_grid_segments as after its own maxflow(). The library
    schedules them (mf_solve_many): on a GPU (engine auto with one usable,
    or gpu) up to 64 graphs go to the device in one launch, solved as one
    network, their disjoint union, so that one BFS level or push round
    serves them all; on the CPU they are solved side by side, one thread
    each (threads=N: in turn, N threads each). The networks are built on
    every core, one launch's while the library solves the launch before."""
    graphs = list(graphs)
    for g in graphs:
        if not isinstance(g, Graph):
            raise TypeError(f"maxflow_many takes flowcut.Graph objects, not {type(g).__name__}")
    opt = _lib.solve_options(engine, cpu_algorithm, device, threads)
    distinct = len({id(g) for g in graphs}) == len(graphs)  # one Graph twice: built one at a time
    cores = max(1, min(os.cpu_count() or 1, 16))
    chunks = list(_launches(graphs))
    pool = ThreadPoolExecutor(max_workers=cores if distinct else 1)
    pending = None
    try:
        pending = [pool.submit(g._network) for g in chunks[0]] if chunks else None
        for i, chunk in enumerate(chunks):
            nets, pending = _collect(pending), None
            if i + 1 < len(chunks):
                pending = [pool.submit(g._network) for g in chunks[i + 1]]
            try:
                k, err = len(chunk), _lib.MfError()
                ptrs = (ctypes.POINTER(_lib.MfGraph) * k)(*[ctypes.pointer(n) for n in nets])
                res = (_lib.MfResult * k)()
                _lib.mf_check(_lib.mf_solve_many(ptrs, k, ctypes.byref(opt), res, ctypes.byref(err)), err)
                try:
                    for g, n, r in zip(chunk, nets, res):
                        g._take(r, n)
                finally:
                    for r in res:
                        _lib.mf_result_free(ctypes.byref(r))
            finally:
                _free_networks(nets)
    finally:
        if pending is not None:  # an error left the next chunk's networks built
            _free_networks(_collect(pending, raise_first=False))
        pool.shutdown(wait=True)
    return [g.flow for g in graphs]


def _collect(futures, raise_first=True):
    """The networks of futures; on a failure frees the built ones and raises."""
    nets, error = [], None
    for f in futures:
        try:
            nets.append(f.result())
        except BaseException as e:
            error = error or e
    if error is not None:
        _free_networks(nets)
        if raise_first:
            raise error
        return []
    return nets


def _free_networks(nets):
    for n in nets:
        _lib.mf_graph_free(ctypes.byref(n))


__all__ = ["Graph", "GraphInt", "GraphFloat", "maxflow_many", "neighbourhood", "neighborhood"]
