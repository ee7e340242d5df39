"""flowcut: graph-cut segmentation and exact max-flow on CPU and GPU.

    import flowcut
    mask = flowcut.segment(rgb, seeds)              # numpy in, numpy out
    g = flowcut.Graph()                             # PyMaxflow-style graphs
    ids = g.add_grid_nodes(volume.shape)            # N-D grids
    g.add_grid_edges(ids, 50, flowcut.neighbourhood(3, 26))
    g.add_grid_tedges(ids, fg_cost, bg_cost)
    g.maxflow(); seg = g.get_grid_segments(ids)
    flowcut.maxflow_many(graphs)                    # many graphs, one GPU launch for up to 64
    flowcut.fastmin.aexpansion_grid(D, V)           # multi-label grids (PyMaxflow's fastmin)
    flowcut.segment_batch([(img, seeds, mask), ...])  # many files, every core and GPU
    p = flowcut.read_dimacs("net.max"); p.maxflow().value
    s = flowcut.Session(rgb, seeds); s.cut(); s.paint("foreground", 10, 10, 40, 12); s.cut()

Built on libflowcut through ctypes; the GIL is released during solves."""
import ctypes as _ctypes

from . import _lib
from . import fastmin
from ._lib import FlowcutError
from .graph import (Graph, GraphFloat, GraphInt, maxflow_many, moore_structure, neighbourhood, neighborhood,
                    vonNeumann_structure)
from .problem import Dynamic, Problem, Result, read_dimacs
from .segmentation import segment, segment_batch, segment_files, segment_scribbles, segment_trimap
from .session import Session

__version__ = "0.1.0"


def gpu_available():
    """Number of usable CUDA devices (0 without CUDA support or a device)."""
    n = _ctypes.c_int(0)
    if not _lib.mf_gpu_compiled() or _lib.mf_gpu_available(_ctypes.byref(n)):
        return 0
    return n.value


__all__ = ["FlowcutError", "fastmin", "Graph", "GraphInt", "GraphFloat", "maxflow_many", "neighbourhood", "neighborhood",
           "vonNeumann_structure", "moore_structure", "Problem", "Dynamic", "Result",
           "read_dimacs", "segment", "segment_batch", "segment_files", "segment_scribbles", "segment_trimap", "Session",
           "gpu_available"]
