"""flowcut.fastmin: multi-label energy minimisation on N-D grids by graph
cuts, with PyMaxflow's `maxflow.fastmin` calls (alpha-expansion and
alpha-beta swap; Boykov, Veksler and Zabih, "Fast approximate energy
minimization via graph cuts", TPAMI 2001).

The energy of a labeling f of a grid with shape S (von Neumann
neighbourhood: the 2N face neighbours in N-D) is

    E(f) = sum_p D[p + (f_p,)] + sum over neighbours p, q = p + e_axis of V[f_q, f_p]

D has shape S + (L,) (L labels), V shape (L, L). Each move is one exact
minimum cut (flowcut.Graph) over the pixels' binary choice, built by the
standard reduction of a two-variable term (Kolmogorov and Zabih 2004):
a table (A, B; C, D') on (x_q, x_p) is A + (C - A) x_q + (D' - C) x_p +
(B + C - A - D') (1 - x_q) x_p, the last term an arc q -> p. A move is kept
only when it lowers E, so E never rises; the moves are exact where the
pairwise terms allow them (alpha-expansion: V a metric; swap: V a
semi-metric), and a term that breaks that is clipped to zero in its cut.
Integer D and V are cut on Graph[int] (exact), others on Graph[float]."""
from itertools import combinations, count

import numpy as np

from .graph import GraphFloat, GraphInt


def _check(D, V, labels):
    D, V = np.asarray(D), np.asarray(V)
    if D.ndim < 2:
        raise ValueError("D must have shape S + (L,): a grid of at least one axis and the labels' axis")
    L = D.shape[-1]
    if V.shape != (L, L):
        raise ValueError(f"V must have shape ({L}, {L}) for D's {L} labels, not {V.shape}")
    if not (np.all(np.isfinite(D)) and np.all(np.isfinite(V))):
        raise ValueError("D and V must be finite")
    if labels is not None:
        labels = np.asarray(labels)
        if labels.shape != D.shape[:-1]:
            raise ValueError(f"labels must have D's grid shape {D.shape[:-1]}, not {labels.shape}")
        if labels.size and (labels.min() < 0 or labels.max() >= L):
            raise ValueError(f"labels must lie in 0..{L - 1}")
    return D, V


def _pairs(shape):
    """(q, p) index pairs along each axis: q = p + e_axis."""
    for axis in range(len(shape)):
        if shape[axis] < 2:
            continue
        q = [slice(None)] * len(shape)
        p = [slice(None)] * len(shape)
        q[axis], p[axis] = slice(1, None), slice(None, -1)
        yield tuple(q), tuple(p)


def energy_of_grid_labeling(D, V, labels):
    """E(labels) for unary costs D (shape S + (L,)) and pairwise costs V."""
    D, V = _check(D, V, labels)
    return _energy(D, V, np.asarray(labels))


def _energy(D, V, labels):
    """energy_of_grid_labeling of arguments already checked."""
    energy = np.take_along_axis(D, labels[..., None].astype(np.intp), -1).sum()
    for q, p in _pairs(labels.shape):
        energy = energy + V[labels[q], labels[p]].sum()
    return energy


def _cut(D, V, shape, one, zero, pair_terms):
    """One binary move: cost of x = 1 (one) and x = 0 (zero) per pixel, and
    for each axis (q, p, A, B, C, Dd) the pair table on (x_q, x_p); returns
    the pixels whose x is 1 in a minimum cut."""
    exact = np.issubdtype(D.dtype, np.integer) and np.issubdtype(V.dtype, np.integer)
    kind = np.int64 if exact else np.float64
    one, zero = one.astype(kind), zero.astype(kind)
    g = GraphInt() if exact else GraphFloat()
    ids = g.add_grid_nodes(shape)
    for q, p, A, B, C, Dd in pair_terms:
        one[q] += C - A
        one[p] += Dd - C
        w = np.maximum(B + C - A - Dd, 0).astype(kind)  # an arc q -> p; negative: not representable
        nz = w > 0
        if nz.any():
            g.add_edges(ids[q][nz], ids[p][nz], w[nz], np.zeros(int(nz.sum()), kind))
    low = np.minimum(one, zero)
    g.add_grid_tedges(ids, one - low, zero - low)  # the sink side (x = 1) pays the source arc
    g.maxflow()
    return g.get_grid_segments(ids)


def aexpansion_grid_step(alpha, D, V, labels):
    """One alpha-expansion move: every pixel keeps its label or takes alpha,
    whichever the minimum cut chooses; labels change in place only when the
    move lowers the energy. Returns (the energy after the step, the number
    of pixels that changed)."""
    D, V = _check(D, V, labels)
    shape = labels.shape
    cur = labels.astype(np.intp)
    zero = np.take_along_axis(D, cur[..., None], -1)[..., 0]
    one = D[..., alpha].copy()
    terms = []
    for q, p in _pairs(shape):
        fq, fp = cur[q], cur[p]
        terms.append((q, p, V[fq, fp], V[fq, alpha], V[alpha, fp], V[alpha, alpha]))
    return _keep_if_lower(D, V, labels, np.where(_cut(D, V, shape, one, zero, terms), alpha, cur))


def _keep_if_lower(D, V, labels, new):
    """A move's end: labels become new when that lowers the energy.
    Returns (the energy now, the number of pixels that changed)."""
    before, after = _energy(D, V, labels), _energy(D, V, new)
    if after < before:
        changed = int((new != labels).sum())
        labels[...] = new
        return after, changed
    return before, 0


def abswap_grid_step(alpha, beta, D, V, labels):
    """One alpha-beta swap move: the pixels labelled alpha or beta take
    either of the two, whichever the minimum cut chooses; the others keep
    theirs. labels change in place only when the move lowers the energy.
    Returns (the energy after the step, the number of pixels that changed)."""
    D, V = _check(D, V, labels)
    shape = labels.shape
    cur = labels.astype(np.intp)
    inside = (cur == alpha) | (cur == beta)
    zero = np.where(inside, D[..., alpha], 0)
    one = np.where(inside, D[..., beta], 0)
    zero, one = zero.astype(np.result_type(D, V)), one.astype(np.result_type(D, V))
    terms = []
    for q, p in _pairs(shape):
        both = inside[q] & inside[p]
        fq, fp = cur[q], cur[p]
        # a neighbour outside the move: its term is the inside pixel's own
        only_q = inside[q] & ~inside[p]
        zero[q] += np.where(only_q, V[alpha, fp], 0)
        one[q] += np.where(only_q, V[beta, fp], 0)
        only_p = inside[p] & ~inside[q]
        zero[p] += np.where(only_p, V[fq, alpha], 0)
        one[p] += np.where(only_p, V[fq, beta], 0)
        z = np.zeros(both.shape, V.dtype)
        terms.append((q, p, np.where(both, V[alpha, alpha], z), np.where(both, V[alpha, beta], z),
                      np.where(both, V[beta, alpha], z), np.where(both, V[beta, beta], z)))
    side = _cut(D, V, shape, one, zero, terms)
    return _keep_if_lower(D, V, labels, np.where(inside, np.where(side, beta, alpha), cur))


def _start(D, labels):
    if labels is not None:  # an array is changed in place; anything else is copied
        return labels if isinstance(labels, np.ndarray) else np.array(labels)
    L = D.shape[-1]
    return D.argmin(axis=-1).astype(np.int8 if L <= 127 else np.int_)


def aexpansion_grid(D, V, max_cycles=None, labels=None):
    """Minimises E by alpha-expansion moves (V should be a metric) until a
    cycle over every label lowers it no more, or max_cycles cycles. D has
    shape S + (L,), V (L, L); labels (shape S, changed in place) is the
    start, else each pixel's cheapest label. Returns the labeling."""
    D, V = _check(D, V, labels)
    labels = _start(D, labels)
    for _ in range(max_cycles) if max_cycles is not None else count():
        changed = sum(aexpansion_grid_step(alpha, D, V, labels)[1] for alpha in range(D.shape[-1]))
        if not changed:
            break
    return labels


def abswap_grid(D, V, max_cycles=None, labels=None):
    """Minimises E by alpha-beta swap moves (V a semi-metric) until a cycle
    over every pair of labels lowers it no more, or max_cycles cycles; the
    arguments as for aexpansion_grid."""
    D, V = _check(D, V, labels)
    labels = _start(D, labels)
    for _ in range(max_cycles) if max_cycles is not None else count():
        changed = sum(abswap_grid_step(a, b, D, V, labels)[1] for a, b in combinations(range(D.shape[-1]), 2))
        if not changed:
            break
    return labels
