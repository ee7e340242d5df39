#!/usr/bin/python3
"""PyMaxflow's calls as its users write them, through `import flowcut as
maxflow`: the Graph calls of its tutorial and examples (structures,
symmetric grids, -1 ids, periodic grids, +inf, its keyword names) and
fastmin's multi-label moves, checked against hand-computed cuts and brute
force on small grids.

usage: test_pymaxflow.py MODULE_DIR   (unittest arguments may follow)"""
import itertools
import sys
import unittest

import numpy as np

sys.path.insert(0, sys.argv[1])
import flowcut  # noqa: E402


class TestPyMaxflowCalls(unittest.TestCase):
    """PyMaxflow's Graph calls as its users write them (import flowcut as maxflow)."""

    def test_default_structure_symmetric(self):
        # PyMaxflow's default structure with symmetric=True holds each pair once: w both ways
        import flowcut as maxflow
        g = maxflow.Graph[int]()
        ids = g.add_grid_nodes((3, 3))
        g.add_grid_edges(ids, 5, symmetric=True)
        g.add_grid_tedges(ids[:, 0], 1000, 0)
        g.add_grid_tedges(ids[:, 2], 0, 1000)
        self.assertEqual(g.maxflow(), 3 * 5)  # three edges of 5 cut between two columns
        h = maxflow.Graph[int]()
        ids = h.add_grid_nodes((3, 3))
        h.add_grid_edges(ids, 5)  # directed default: each pair gets w[p] one way, w[q] back
        h.add_grid_tedges(ids[:, 0], 1000, 0)
        h.add_grid_tedges(ids[:, 2], 0, 1000)
        self.assertEqual(h.maxflow(), 3 * 5)

    def test_structures_and_missing_nodes(self):
        import flowcut as maxflow
        self.assertEqual(maxflow.vonNeumann_structure(2).tolist(), [[0, 1, 0], [1, 0, 1], [0, 1, 0]])
        self.assertEqual(maxflow.vonNeumann_structure(2, directed=True).tolist(), [[0, 0, 0], [0, 0, 1], [0, 1, 0]])
        self.assertEqual(maxflow.moore_structure(2, directed=True).tolist(), [[0, 0, 0], [0, 0, 1], [1, 1, 1]])
        self.assertEqual(int(maxflow.moore_structure(3).sum()), 26)
        # -1 in the node array: no node there, no edge to it
        g = maxflow.Graph[int]()
        ids = g.add_grid_nodes((1, 3))
        holed = ids.copy()
        holed[0, 1] = -1
        g.add_grid_edges(holed, 7, symmetric=True)
        g.add_tedge(int(ids[0, 0]), 100, 0)
        g.add_tedge(int(ids[0, 2]), 0, 100)
        self.assertEqual(g.maxflow(), 0)  # the middle node, left out, joined nothing

    def test_pymaxflow_spellings(self):
        import flowcut as maxflow
        g = maxflow.Graph[float](est_node_num=2, est_edge_num=1)
        n = g.add_nodes(2)
        g.add_edge(n[0], n[1], capacity=1.0, rcapacity=2.0)
        g.add_edges(n[1:], n[:1], capacity=0.5, rev_capacity=0.0)
        g.add_tedge(n[0], 4.0, 0.0)
        g.add_tedge(n[1], 0.0, 9.0)
        self.assertEqual(g.maxflow(True), 1.0)  # reuse_trees, PyMaxflow's first argument
        self.assertEqual(g.maxflow(reuse_trees=False), 1.0)
        m = maxflow.Graph[int]()
        ids = m.add_grid_nodes((2, 2))
        mask = np.array([[True, False], [False, True]])
        m.add_grid_tedges(ids, mask, ~mask)  # a mask as 0 / 1 capacities
        self.assertEqual(m.maxflow(), 0)
        self.assertEqual(m.get_grid_segments(ids).tolist(), [[False, True], [True, False]])
        with self.assertRaisesRegex(TypeError, "given twice"):
            m.add_edge(0, 1, 1, 0, capacity=1)

    def test_infinite_and_periodic(self):
        import flowcut as maxflow
        # +inf: an arc no cut takes (Graph[float]); a chain 0 - 1 - 2 whose first link cannot be cut
        g = maxflow.Graph[float]()
        ids = g.add_grid_nodes((3,))
        g.add_grid_edges(ids, weights=np.array([np.inf, 2.0, 0.0]), structure=np.array([0, 0, 1]), symmetric=True)
        g.add_grid_tedges(ids[:1], np.inf, 0)
        g.add_grid_tedges(ids[2:], 0, 5.0)
        self.assertEqual(g.maxflow(), 2.0)
        self.assertEqual(g.get_grid_segments(ids).tolist(), [False, False, True])
        gi = maxflow.Graph[int]()
        with self.assertRaisesRegex(ValueError, "must be finite"):  # an integer graph has no +inf
            gi.add_grid_edges(gi.add_grid_nodes((2,)), weights=np.inf)
        # periodic: a ring of 4 whose links all cost 3 is cut twice between two opposite nodes
        r = maxflow.Graph[int]()
        ids = r.add_grid_nodes((4,))
        r.add_grid_edges(ids, 3, structure=np.array([0, 0, 1]), symmetric=True, periodic=True)
        r.add_tedge(int(ids[0]), 100, 0)
        r.add_tedge(int(ids[2]), 0, 100)
        self.assertEqual(r.maxflow(), 6)
        o = maxflow.Graph[int]()
        ids = o.add_grid_nodes((4,))
        o.add_grid_edges(ids, 3, structure=np.array([0, 0, 1]), symmetric=True)  # a chain: one cut link
        o.add_tedge(int(ids[0]), 100, 0)
        o.add_tedge(int(ids[2]), 0, 100)
        self.assertEqual(o.maxflow(), 3)


class TestFastmin(unittest.TestCase):
    """PyMaxflow's fastmin calls: alpha-expansion and alpha-beta swap on grids."""

    @staticmethod
    def brute(D, V):
        """The least energy over every labeling of a small grid."""
        shape, L = D.shape[:-1], D.shape[-1]
        return min(flowcut.fastmin.energy_of_grid_labeling(D, V, np.array(f).reshape(shape))
                   for f in itertools.product(range(L), repeat=int(np.prod(shape))))

    def test_energy(self):
        D = np.arange(2 * 3 * 2).reshape(2, 3, 2)
        V = np.array([[0, 5], [7, 0]])
        f = np.array([[0, 1, 1], [1, 0, 0]])
        unary = sum(D[y, x, f[y, x]] for y in range(2) for x in range(3))
        pairs = sum(V[f[y + 1, x], f[y, x]] for y in range(1) for x in range(3)) + \
            sum(V[f[y, x + 1], f[y, x]] for y in range(2) for x in range(2))
        self.assertEqual(flowcut.fastmin.energy_of_grid_labeling(D, V, f), unary + pairs)

    def test_two_labels_exact(self):
        # with two labels a swap move is one exact cut over every pixel: the optimum
        rng = np.random.default_rng(1)
        for _ in range(6):
            D = rng.integers(0, 12, (3, 3, 2))
            V = np.array([[0, 5], [5, 0]])
            best = self.brute(D, V)
            self.assertEqual(flowcut.fastmin.energy_of_grid_labeling(D, V, flowcut.fastmin.abswap_grid(D, V)), best)
            # alpha-expansion with a Potts V: within twice the optimum, never above its start
            e = flowcut.fastmin.energy_of_grid_labeling(D, V, flowcut.fastmin.aexpansion_grid(D, V))
            self.assertLessEqual(e, 2 * best)
            self.assertLessEqual(e, flowcut.fastmin.energy_of_grid_labeling(D, V, D.argmin(-1)))

    def test_three_labels(self):
        rng = np.random.default_rng(2)
        V = np.array([[0, 2, 4], [2, 0, 2], [4, 2, 0]])  # a metric: |a - b| times 2
        for _ in range(4):
            D = rng.integers(0, 9, (2, 3, 3))
            best = self.brute(D, V)
            start = flowcut.fastmin.energy_of_grid_labeling(D, V, D.argmin(-1))
            for solve in (flowcut.fastmin.aexpansion_grid, flowcut.fastmin.abswap_grid):
                e = flowcut.fastmin.energy_of_grid_labeling(D, V, solve(D, V))
                self.assertTrue(best <= e <= start)
            # the expansion's bound for a metric: 2 c times the optimum, c = max / min of V off its diagonal
            e = flowcut.fastmin.energy_of_grid_labeling(D, V, flowcut.fastmin.aexpansion_grid(D, V))
            self.assertLessEqual(e, 2 * 2 * best)

    def test_denoise(self):
        # three regions under noise: the moves recover them from the noisy start, in place
        rng = np.random.default_rng(0)
        truth = np.zeros((40, 50), int)
        truth[:, 20:] = 1
        truth[10:30, 30:45] = 2
        img = truth + rng.normal(0, 0.6, truth.shape)
        D = np.stack([(img - k) ** 2 for k in range(3)], -1)
        V = 1.0 - np.eye(3)
        start = D.argmin(-1)
        self.assertLess((start == truth).mean(), 0.75)
        labels = start.copy()
        out = flowcut.fastmin.aexpansion_grid(D, V, labels=labels)
        self.assertIs(out, labels)
        self.assertGreater((labels == truth).mean(), 0.98)
        self.assertGreater((flowcut.fastmin.abswap_grid(D, V, max_cycles=3) == truth).mean(), 0.98)
        # a 3-D volume takes its six face neighbours
        vol = np.stack([truth] * 4)
        Dv = np.stack([(vol + rng.normal(0, 0.6, vol.shape) - k) ** 2 for k in range(3)], -1)
        self.assertGreater((flowcut.fastmin.aexpansion_grid(Dv, V) == vol).mean(), 0.98)

    def test_pymaxflow_names_and_errors(self):
        import flowcut as maxflow  # PyMaxflow code with its import line changed
        D = np.zeros((2, 2, 3))
        self.assertEqual(maxflow.fastmin.aexpansion_grid(D, np.zeros((3, 3))).shape, (2, 2))
        with self.assertRaisesRegex(ValueError, "V must have shape"):
            maxflow.fastmin.aexpansion_grid(D, np.zeros((2, 2)))
        with self.assertRaisesRegex(ValueError, "labels must lie"):
            maxflow.fastmin.abswap_grid(D, np.zeros((3, 3)), labels=np.full((2, 2), 3))
        with self.assertRaisesRegex(ValueError, "finite"):
            maxflow.fastmin.aexpansion_grid(np.full((2, 2, 3), np.nan), np.zeros((3, 3)))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=1)
