#!/usr/bin/python3
"""The Python module against the CLI (bit-identical masks), an independent
max-flow (Edmonds-Karp written here) on random graphs, hand-built grid
graphs in 2-D and 3-D, DIMACS problems and the warm re-solve, bad
arguments, and the GIL released during solves.

usage: test_python.py FLOWCUT_BINARY MODULE_DIR   (unittest arguments may follow)"""
import collections
import itertools
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np

FLOWCUT = sys.argv[1]
sys.path.insert(0, sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
import png_tool  # noqa: E402
import flowcut  # noqa: E402

EXAMPLES = os.path.join(ROOT, "examples")


def read_png(path):
    w, h, ch, px = png_tool.read(path)
    a = np.frombuffer(px, np.uint8).reshape(h, w, ch)
    return a[:, :, 0] if ch == 1 else a


def reference_maxflow(n, s, t, arcs):
    """Edmonds-Karp on a dict of capacities; returns the value and the set
    of vertices that reach t in the final residual graph."""
    cap = collections.defaultdict(int)
    adj = collections.defaultdict(set)
    for u, v, c in arcs:
        if u != v:
            cap[u, v] += c
            adj[u].add(v)
            adj[v].add(u)
    flow = 0
    while True:
        parent = {s: None}
        q = collections.deque([s])
        while q and t not in parent:
            u = q.popleft()
            for v in adj[u]:
                if v not in parent and cap[u, v] > 0:
                    parent[v] = u
                    q.append(v)
        if t not in parent:
            break
        path, v = [], t
        while parent[v] is not None:
            path.append((parent[v], v))
            v = parent[v]
        d = min(cap[e] for e in path)
        for u, v in path:
            cap[u, v] -= d
            cap[v, u] += d
        flow += d
    reach, q = {t}, collections.deque([t])
    while q:
        v = q.popleft()
        for u in adj[v]:
            if u not in reach and cap[u, v] > 0:
                reach.add(u)
                q.append(u)
    return flow, reach


class TestSegment(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.photo = os.path.join(EXAMPLES, "coffee.png")
        cls.seeds = os.path.join(EXAMPLES, "coffee-seeds.png")
        cls.rgb = read_png(cls.photo)
        cls.labels = read_png(cls.seeds)

    def cli(self, args, seeds_flag="--seeds", seeds=None):
        out = os.path.join(self.tmp, "m.png")
        subprocess.run([FLOWCUT, "segment", self.photo, seeds_flag, seeds or self.seeds, "-o", out, "-f", "-q",
                        "--engine", "cpu"] + args, check=True)
        return read_png(out)

    def test_clicks_and_box(self):
        """Prompts alone segment; the same prompts as seed labels cut alike."""
        h, w = self.rgb.shape[:2]
        cx, cy = w // 2, h // 2
        one = flowcut.segment(self.rgb, clicks=[(cx, cy)], engine="cpu")
        self.assertEqual(one[cy, cx], 255)
        self.assertTrue(0 < (one > 0).mean() < 1)
        same = flowcut.segment(self.rgb, clicks=f"{cx},{cy}", engine="cpu")
        self.assertTrue(np.array_equal(one, same))
        two = flowcut.segment(self.rgb, clicks=[(cx, cy), (5, 5, False)], box=(2, 2, w - 4, h - 4), engine="cpu")
        self.assertEqual(two[5, 5], 0)
        self.assertFalse(two[0].any() or two[:, 0].any())
        boxed = flowcut.segment(self.rgb, box=(w // 4, h // 4, w // 2, h // 2), engine="cpu")
        self.assertFalse(boxed[: h // 4].any())
        with self.assertRaisesRegex(ValueError, "cannot read 'x,1'"):
            flowcut.segment(self.rgb, clicks="x,1")
        with self.assertRaisesRegex(ValueError, "box is"):
            flowcut.segment(self.rgb, box=(1, 2))
        with self.assertRaisesRegex(ValueError, "seeds, clicks or a box"):
            flowcut.segment(self.rgb)
        with self.assertRaisesRegex(flowcut.FlowcutError, "outside"):
            flowcut.segment(self.rgb, clicks=[(w, 0)])
        # a click's own disc: a fourth item, or X,Y,R in the text form
        small, info = flowcut.segment(self.rgb, clicks=[(cx, cy, True, 3)], engine="cpu", return_info=True)
        self.assertEqual(info["click_radius"], 3)
        self.assertTrue(np.array_equal(small, flowcut.segment(self.rgb, clicks=f"{cx},{cy},3", engine="cpu")))
        self.assertGreater(flowcut.segment(self.rgb, clicks=[(cx, cy)], return_info=True)[1]["click_radius"], 3)
        with self.assertRaisesRegex(ValueError, "radius"):
            flowcut.segment(self.rgb, clicks=[(cx, cy, True, -1)])

    def test_segment_batch(self):
        """The library's batch scheduler: each mask is segment_files' mask,
        a bad item fails alone with its message, outputs are refused unless
        overwrite, progress sees every item, named GPUs must exist."""
        d = tempfile.mkdtemp()
        prompts = os.path.join(d, "clicks.txt")
        with open(prompts, "w") as f:
            f.write("fg 150,120\n")
        items = [(self.photo, self.seeds, os.path.join(d, "a", "one.png")),
                 {"image": os.path.join(d, "missing.png"), "seeds": self.seeds, "mask": os.path.join(d, "x.png")},
                 {"image": self.photo, "prompts": prompts, "mask": os.path.join(d, "two.png"),
                  "overlay": os.path.join(d, "two-overlay.png")}]
        seen = []
        out = flowcut.segment_batch(items, engine="cpu", jobs=2, progress=seen.append)
        self.assertEqual([r["status"] for r in out], ["ok", "error", "ok"])
        self.assertEqual(len(seen), 3)
        self.assertIn("missing.png", out[1]["error"])
        self.assertFalse(os.path.exists(os.path.join(d, "x.png")))
        want = flowcut.segment_files(self.photo, self.seeds, engine="cpu")
        self.assertTrue(np.array_equal(read_png(os.path.join(d, "a", "one.png")), want))
        self.assertEqual(out[0]["foreground_pixels"], int((want == 255).sum()))
        clicked = flowcut.segment(self.rgb, clicks=[(150, 120)], engine="cpu")
        self.assertTrue(np.array_equal(read_png(os.path.join(d, "two.png")), clicked))
        self.assertTrue(os.path.exists(os.path.join(d, "two-overlay.png")))
        again = flowcut.segment_batch(items[:1], engine="cpu")
        self.assertEqual(again[0]["status"], "error")
        self.assertIn("already exists", again[0]["error"])
        self.assertEqual(flowcut.segment_batch(items[:1], engine="cpu", overwrite=True)[0]["status"], "ok")
        self.assertEqual(flowcut.segment_batch([], engine="cpu"), [])
        with self.assertRaisesRegex(ValueError, "needs seeds, prompts"):
            flowcut.segment_batch([{"image": self.photo, "mask": os.path.join(d, "y.png")}])
        with self.assertRaisesRegex(ValueError, "lambda"):
            flowcut.segment_batch(items[:1], lambda_=-1)
        if not flowcut.gpu_available():
            with self.assertRaisesRegex(flowcut.FlowcutError, "CUDA"):
                flowcut.segment_batch(items[:1], gpus=[0], overwrite=True)

    def test_matches_cli(self):
        for args, kw in (([], {}),
                         (["--lambda", "80", "--connectivity", "4"], {"lambda_": 80, "connectivity": 4}),
                         (["--model", "hist", "--uniform-mix", "0.05"], {"model": "hist", "uniform_mix": 0.05}),
                         (["--iterations", "2", "--cpu-algorithm", "bk"], {"iterations": 2, "cpu_algorithm": "bk"})):
            with self.subTest(args=args):
                want = self.cli(args)
                got, info = flowcut.segment(self.rgb, self.labels, engine="cpu", return_info=True, **kw)
                self.assertEqual(got.shape, self.labels.shape)
                self.assertEqual(got.dtype, np.uint8)
                self.assertTrue(np.array_equal(got, want), "mask differs from the CLI's")
                self.assertEqual(info["foreground_pixels"], int((want == 255).sum()))
                files = flowcut.segment_files(self.photo, self.seeds, engine="cpu", **kw)
                self.assertTrue(np.array_equal(files, want))

    def test_trimap_and_scribbles(self):
        tri = os.path.join(self.tmp, "tri.png")
        rgb = os.path.join(self.tmp, "rgb.png")
        subprocess.run([sys.executable, os.path.join(HERE, "..", "cli", "png_tool.py"), "recode", self.seeds,
                        "trimap", tri], check=True)
        subprocess.run([sys.executable, os.path.join(HERE, "..", "cli", "png_tool.py"), "recode", self.seeds,
                        "rgb", rgb], check=True)
        want = self.cli([], "--trimap", tri)
        self.assertTrue(np.array_equal(flowcut.segment_trimap(self.rgb, read_png(tri), engine="cpu"), want))
        self.assertTrue(np.array_equal(flowcut.segment_files(self.photo, tri, trimap=True, engine="cpu"), want))
        want = self.cli([], "--seeds", rgb)
        self.assertTrue(np.array_equal(flowcut.segment_scribbles(self.rgb, read_png(rgb), engine="cpu"), want))
        # another colour pair
        scr = read_png(rgb).copy()
        red = np.all(scr == (255, 0, 0), axis=2)
        blue = np.all(scr == (0, 0, 255), axis=2)
        scr[red], scr[blue] = (0, 255, 0), (255, 255, 0)
        got = flowcut.segment_scribbles(self.rgb, scr, fg=(0, 255, 0), bg=(255, 255, 0), engine="cpu")
        self.assertTrue(np.array_equal(got, want))

    def test_grey_and_rgba_photos(self):
        grey = self.rgb[:, :, 1].copy()
        want = flowcut.segment(np.dstack([grey] * 3), self.labels, engine="cpu")
        self.assertTrue(np.array_equal(flowcut.segment(grey, self.labels, engine="cpu"), want))
        rgba = np.dstack([self.rgb, np.full(grey.shape, 7, np.uint8)])
        self.assertTrue(np.array_equal(flowcut.segment(rgba, self.labels, engine="cpu"),
                                       flowcut.segment(self.rgb, self.labels, engine="cpu")))

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, "lambda needs a number"):
            flowcut.segment(self.rgb, self.labels, lambda_=-3)
        with self.assertRaisesRegex(ValueError, "connectivity is 4 or 8"):
            flowcut.segment(self.rgb, self.labels, connectivity=6)
        with self.assertRaisesRegex(ValueError, "unknown option 'colour'"):
            flowcut.segment(self.rgb, self.labels, colour=3)
        with self.assertRaisesRegex(ValueError, "engine must be"):
            flowcut.segment(self.rgb, self.labels, engine="tpu")
        with self.assertRaisesRegex(ValueError, "seeds must be"):
            flowcut.segment(self.rgb, self.labels[:10])
        with self.assertRaisesRegex(TypeError, "image must be uint8"):
            flowcut.segment(self.rgb.astype(np.float32), self.labels)
        with self.assertRaisesRegex(ValueError, "image must be"):
            flowcut.segment(np.zeros((4, 4, 2), np.uint8), np.zeros((4, 4), np.uint8))
        with self.assertRaises(flowcut.FlowcutError) as cm:
            flowcut.segment(self.rgb, np.where(self.labels == 1, 0, self.labels).astype(np.uint8))
        self.assertIn("no foreground seed", str(cm.exception))
        self.assertEqual(cm.exception.code, flowcut._lib.SEG_ERR_NEED_SEEDS)
        with self.assertRaisesRegex(flowcut.FlowcutError, "nope.png"):
            flowcut.segment_files(os.path.join(self.tmp, "nope.png"), self.seeds)
        if flowcut.gpu_available() == 0:
            with self.assertRaisesRegex(flowcut.FlowcutError, "CUDA"):
                flowcut.segment(self.rgb, self.labels, engine="gpu")


class TestSession(unittest.TestCase):
    def test_session_with_geodesic_prior_matches_segment(self):
        # with the prior every stroke rebuilds (cold); masks still equal segment()'s defaults
        rgb, labels = read_png(os.path.join(EXAMPLES, "coffee.png")), read_png(os.path.join(EXAMPLES, "coffee-seeds.png"))
        with flowcut.Session(rgb, labels, engine="cpu", geodesic=14, lambda_=70, star="on") as s:
            s.cut()
            self.assertTrue(np.array_equal(s.mask, flowcut.segment(rgb, labels, engine="cpu", star="on")))
            s.paint("background", 10, 10, 60, 20, radius=3)
            st = s.cut()
            self.assertFalse(st["warm"])
            self.assertTrue(np.array_equal(s.mask, flowcut.segment(rgb, s.seeds, engine="cpu", star="on")))
        with self.assertRaisesRegex(ValueError, "geodesic"):
            flowcut.Session(rgb, labels, geodesic=-1)
        with self.assertRaisesRegex(ValueError, "border"):
            flowcut.segment(rgb, labels, border="near")

    def test_session_clicks_match_segment(self):
        rgb = read_png(os.path.join(EXAMPLES, "coffee.png"))
        with flowcut.Session(rgb, engine="cpu") as s:
            s.click(300, 150)
            s.cut()
            first = s.mask.copy()
            self.assertTrue(np.array_equal(first, flowcut.segment(rgb, clicks=[(300, 150)], engine="cpu")))
            s.commit()
            # the second click corrects the first answer: segment() replays it
            # with that answer as previous
            self.assertEqual(s.click(60, 60, positive=False), 2)  # already background there: the least disc
            s.cut()
            clicks = [(300, 150), (60, 60, False)]
            want = flowcut.segment(rgb, clicks=clicks, previous=first, engine="cpu")
            self.assertTrue(np.array_equal(s.mask, want))
            self.assertTrue(np.array_equal(s.mask, flowcut.segment(rgb, clicks=clicks, previous=first == 255,
                                                                   engine="cpu")))
            self.assertEqual(s.previous, (60, 60, False))
            with tempfile.TemporaryDirectory() as d:
                s.save(os.path.join(d, "prev.png"), "previous")
                self.assertTrue(np.array_equal(read_png(os.path.join(d, "prev.png")), first))
            # keep=0: the clicks alone
            alone = flowcut.segment(rgb, clicks=clicks, previous=first, keep=0, engine="cpu")
            self.assertTrue(np.array_equal(alone, flowcut.segment(rgb, clicks=clicks, engine="cpu")))
            self.assertTrue(s.undo())
            s.cut()
            self.assertTrue(np.array_equal(s.mask, first))
            self.assertIsNone(s.previous)  # the first click corrected nothing
            with self.assertRaisesRegex(flowcut.FlowcutError, "no previous answer"):
                s.save("/nonexistent/prev.png", "previous")
            with self.assertRaisesRegex(ValueError, "outside"):
                s.click(rgb.shape[1], 0)
            with self.assertRaisesRegex(ValueError, "previous must have the image.s shape"):
                flowcut.segment(rgb, clicks=clicks, previous=first[1:])
            with self.assertRaisesRegex(flowcut.FlowcutError, "needs the click"):
                flowcut.segment(rgb, np.where(first > 0, 1, 2).astype(np.uint8), previous=first)
            box = (150, 60, 320, 280)  # a box's route has no previous answer
            self.assertTrue(np.array_equal(flowcut.segment(rgb, clicks=clicks, box=box, previous=first, engine="cpu"),
                                           flowcut.segment(rgb, clicks=clicks, box=box, engine="cpu")))
        with flowcut.Session(rgb, engine="cpu") as s:
            self.assertIsNone(s.box_route)
            s.box(150, 60, 320, 280)
            s.cut()
            self.assertTrue(np.array_equal(s.mask, flowcut.segment(rgb, box=(150, 60, 320, 280), engine="cpu")))
            # clicks refine the box's cut; the seeds replay with the box
            self.assertEqual(s.click(300, 150), 10)  # a box's route: the default disc
            s.cut()
            self.assertEqual(s.box_route, (150, 60, 320, 280))
            self.assertTrue(np.array_equal(s.mask, flowcut.segment(rgb, s.seeds, box=s.box_route, engine="cpu")))
            self.assertEqual(s.click(420, 300, radius=3), 3)  # a disc of its own
            self.assertEqual(int((s.seeds[297:304, 417:424] == 1).sum()), 29)  # the 29 pixels of radius 3
            with self.assertRaisesRegex(ValueError, "radius"):
                s.click(300, 150, radius=-1)
            # a box past the photo's edges is the part on the photo, as segment's --box
            s.box(100, 50, 10000, 10000)
            self.assertEqual(s.box_route, (100, 50, 500, 350))
            with self.assertRaisesRegex(ValueError, "outside"):
                s.box(600, 0, 10, 10)
        self.assertTrue(np.array_equal(flowcut.segment(rgb, box=(100, 50, 10000, 10000), engine="cpu"),
                                       flowcut.segment(rgb, box=(100, 50, 500, 350), engine="cpu")))

    def test_session_steps(self):
        """Each click and box is one undo step, as in the page."""
        rgb = read_png(os.path.join(EXAMPLES, "coffee.png"))
        with flowcut.Session(rgb, engine="cpu") as s:
            s.click(300, 150)
            s.cut()
            first = s.mask.copy()
            s.click(290, 140, positive=False)
            s.cut()
            second = s.mask.copy()
            self.assertFalse(np.array_equal(first, second))
            self.assertTrue(s.undo())
            s.cut()
            self.assertTrue(np.array_equal(s.mask, first))
            self.assertTrue(s.redo())
            s.cut()
            self.assertTrue(np.array_equal(s.mask, second))
            s.paint("background", 95, 100, 105, 100, 3)  # strokes stay open until commit
            s.paint("background", 105, 100, 115, 100, 3)
            s.box(150, 60, 320, 280)
            self.assertTrue(s.undo())  # the box alone
            self.assertGreater(int((s.seeds[97:104, 92:118] == 2).sum()), 0)
            self.assertTrue(s.undo())  # both strokes
            self.assertEqual(int((s.seeds[97:104, 92:118] == 2).sum()), 0)

    def test_session_preview(self):
        rgb = read_png(os.path.join(EXAMPLES, "coffee.png"))
        with flowcut.Session(rgb, engine="cpu") as s:
            self.assertFalse(s.preview_pays)  # 0.24 Mpx: the cut itself is quick
        big = np.ascontiguousarray(np.repeat(np.repeat(rgb, 2, axis=0), 2, axis=1))  # 0.96 Mpx
        with flowcut.Session(big, engine="cpu") as s:
            self.assertTrue(s.preview_pays)
            with self.assertRaisesRegex(flowcut.FlowcutError, "seed"):
                s.preview()
            s.click(600, 300)
            p = s.preview()
            self.assertEqual((p.shape, p.dtype, p[300, 600]), (big.shape[:2], np.uint8, 255))
            s.cut()  # the preview changed nothing: the cut is segment()'s
            self.assertTrue(np.array_equal(s.mask, flowcut.segment(big, clicks=[(600, 300)], engine="cpu")))
            self.assertGreater((p == s.mask).mean(), 0.9)

    def test_session_matches_segment(self):
        rgb, labels = read_png(os.path.join(EXAMPLES, "coffee.png")), read_png(os.path.join(EXAMPLES, "coffee-seeds.png"))
        with flowcut.Session(rgb, labels, engine="cpu") as s:
            st = s.cut()
            self.assertFalse(st["warm"])
            classic = dict(engine="cpu")  # the session runs segment()'s energy
            self.assertTrue(np.array_equal(s.mask, flowcut.segment(rgb, labels, **classic)))
            s.set_refit(False)  # a stroke answered at once: the models stay
            s.paint("foreground", 250, 150, 320, 180, radius=6)
            s.paint("background", 10, 10, 60, 20, radius=3)
            st = s.cut()
            self.assertFalse(st["refitted"])
            self.assertGreater(st["changed_pixels"], 0)
            self.assertTrue(s.refine_pending)  # the models are stale
            s.set_refit(True)  # then refined: models re-fitted, as segment fits them
            s.cut()
            self.assertFalse(s.refine_pending)
            seeds = s.seeds
            self.assertEqual(int((seeds != labels).sum()) > 0, True)
            self.assertTrue(np.array_equal(s.mask, flowcut.segment(rgb, seeds, **classic)))
            s.lambda_ = 80
            s.cut()
            self.assertTrue(np.array_equal(s.mask, flowcut.segment(rgb, seeds, lambda_=80, engine="cpu")))
            out = os.path.join(tempfile.mkdtemp(), "m.png")
            s.save(out)
            self.assertTrue(np.array_equal(read_png(out), s.mask))
            with self.assertRaises(flowcut.FlowcutError):
                s.save(out)  # exists, no overwrite
            with self.assertRaisesRegex(ValueError, "label is"):
                s.paint("sky", 0, 0, 1, 1)
            with self.assertRaisesRegex(ValueError, "seeds must be"):
                s.seeds = labels[:5]
            s.seeds = np.zeros_like(labels)
            with self.assertRaises(flowcut.FlowcutError):
                s.cut()  # no seeds
        with self.assertRaisesRegex(ValueError, "closed"):
            s.cut()


class TestGraph(unittest.TestCase):
    def test_pymaxflow_example(self):
        g = flowcut.Graph()
        n = g.add_nodes(2)
        g.add_edge(n[0], n[1], 1, 2)
        g.add_tedge(n[0], 2, 5)
        g.add_tedge(n[1], 9, 4)
        self.assertEqual(g.maxflow(), 8)
        self.assertEqual([g.get_segment(0), g.get_segment(1)], [1, 0])

    def test_random_against_reference(self):
        rng = np.random.default_rng(7)
        engines = [("cpu", "bk"), ("cpu", "push-relabel"), ("cpu", "ibfs")]
        if flowcut.gpu_available():
            engines.append(("gpu", "auto"))
        for trial in range(120):
            n = int(rng.integers(1, 14))
            m = int(rng.integers(0, 3 * n + 1))
            g = flowcut.Graph()
            g.add_nodes(n)
            arcs = []
            for _ in range(m):
                i, j = (int(x) for x in rng.integers(0, n, 2))
                c, r = (int(x) for x in rng.integers(0, 20, 2))
                g.add_edge(i, j, c, r)
                arcs += [(i, j, c), (j, i, r)]
            for i in range(n):
                if rng.random() < 0.6:
                    cs, ct = (int(x) for x in rng.integers(0, 30, 2))
                    g.add_tedge(i, cs, ct)
                    arcs += [("s", i, cs), (i, "t", ct)]
            want, reach = reference_maxflow(n, "s", "t", arcs)
            for engine, alg in engines:
                with self.subTest(trial=trial, engine=engine, alg=alg):
                    self.assertEqual(g.maxflow(engine=engine, cpu_algorithm=alg), want)
                    self.assertEqual([g.get_segment(i) for i in range(n)],
                                     [int(i in reach) for i in range(n)])

    @staticmethod
    def grid_graph(seed, h, w):
        rng = np.random.default_rng(seed)
        g = flowcut.Graph()
        ids = g.add_grid_nodes((h, w))
        g.add_grid_edges(ids, rng.integers(0, 30, (h, w)), flowcut.neighbourhood(2, 8))
        g.add_grid_tedges(ids, rng.integers(0, 60, (h, w)), rng.integers(0, 60, (h, w)))
        return g, ids

    def test_maxflow_many(self):
        shapes = [(40, 30), (1, 1), (7, 90), (64, 64), (2, 3), (120, 80)]
        engines = ["auto", "cpu"] + (["gpu"] if flowcut.gpu_available() else [])
        for engine in engines:
            with self.subTest(engine=engine):
                many = [self.grid_graph(i, *shape) for i, shape in enumerate(shapes)]
                flows = flowcut.maxflow_many([g for g, _ in many], engine=engine)
                for i, shape in enumerate(shapes):
                    alone, ids = self.grid_graph(i, *shape)
                    self.assertEqual(flows[i], alone.maxflow(engine="cpu"))
                    self.assertEqual(many[i][0].flow, flows[i])
                    self.assertTrue(np.array_equal(many[i][0].get_grid_segments(many[i][1]),
                                                   alone.get_grid_segments(ids)))
                if engine == "gpu":
                    self.assertEqual({g.stats["engine"] for g, _ in many}, {"gpu"})
        self.assertEqual(flowcut.maxflow_many([]), [])
        with self.assertRaises(TypeError):
            flowcut.maxflow_many([flowcut.Graph(), 3])
        with self.assertRaises(ValueError):
            flowcut.maxflow_many([flowcut.Graph()], engine="fastest")

    def test_large_capacities_and_scale(self):
        g = flowcut.Graph()
        g.add_nodes(3)
        for i in range(3):
            g.add_tedge(i, 2**40, 2**40 + 5)  # 64-bit terminal sums
        g.add_edge(0, 1, 2**31 - 1, 0)
        self.assertEqual(g.maxflow(), 3 * 2**40)
        f = flowcut.Graph(scale=1000)
        f.add_nodes(2)
        f.add_edge(0, 1, 0.25, 0.5)
        f.add_tedge(0, 1.5, 0)
        f.add_tedge(1, 0, 2.0)
        self.assertAlmostEqual(f.maxflow(), 0.25)
        with self.assertRaisesRegex(ValueError, "whole numbers"):
            h = flowcut.Graph()
            h.add_grid_edges(h.add_grid_nodes((2, 2)), 0.5)

    def test_pymaxflow_tutorial_unchanged(self):
        """PyMaxflow's tutorial code, import line changed, prints its documented output."""
        out = subprocess.run([sys.executable, os.path.join(HERE, "pymaxflow_tutorial.py"), sys.argv[2]],
                             capture_output=True, text=True, check=True).stdout
        self.assertEqual(out, "Maximum flow: 8\nSegment of the node 0: 1\nSegment of the node 1: 0\n"
                              "Maximum flow: 8.5\nSegments: 1 0\n"
                              "restored pixels wrong: 19 of 2000\n"
                              "Maximum flow: -3 segments 1 0\n")

    def test_graph_types(self):
        self.assertIs(flowcut.Graph[int], flowcut.GraphInt)
        self.assertIs(flowcut.Graph[float], flowcut.GraphFloat)
        with self.assertRaisesRegex(TypeError, "int or float"):
            flowcut.Graph[str]
        gi = flowcut.Graph[int]()
        with self.assertRaisesRegex(ValueError, "whole numbers"):
            gi.add_grid_edges(gi.add_grid_nodes((2, 2)), 0.5)
        g = flowcut.Graph[int]()
        g.add_nodes(3)
        self.assertEqual((g.get_node_count(), g.get_edge_count()), (3, 0))
        g.reset()
        self.assertEqual(g.get_node_count(), 0)

    def test_float_graph_against_reference(self):
        """Dyadic capacities are exact; others give the rounded problem's
        optimal cut with its value from the given capacities."""
        rng = np.random.default_rng(11)
        inexact = 0
        for trial in range(80):
            n = int(rng.integers(1, 10))
            dyadic = trial % 2 == 0
            g = flowcut.Graph[float]()
            g.add_nodes(n)
            arcs = []
            unit = 1 / 64 if dyadic else 0.1
            for _ in range(int(rng.integers(0, 3 * n + 1))):
                i, j = (int(x) for x in rng.integers(0, n, 2))
                c, r = (int(x) * unit for x in rng.integers(0, 200, 2))
                g.add_edge(i, j, c, r)
                arcs += [(i, j, c), (j, i, r)]
            for i in range(n):
                a, b = (int(x) * unit for x in rng.integers(0, 300, 2))
                g.add_tedge(i, a, b)
                arcs += [(n, i, a), (i, n + 1, b)]
            flow = g.maxflow()
            # the reference on exact integers: every capacity is k * unit
            ref, reach = reference_maxflow(n + 2, n, n + 1, [(u, v, round(c / unit)) for u, v, c in arcs])
            inexact += not g.exact
            if dyadic:
                self.assertTrue(g.exact)
                self.assertEqual(flow, ref * unit)
                self.assertEqual([g.get_segment(i) for i in range(n)], [int(i in reach) for i in range(n)])
            else:
                self.assertAlmostEqual(flow, ref * unit, places=6)
        self.assertGreater(inexact, 20)  # tenths lose bits when scaled by a power of two

    def test_scale_applies_once_in_grid_helpers(self):
        """The grid helpers scale each capacity once, like add_edge/add_tedge."""
        g = flowcut.Graph(scale=100)
        ids = g.add_grid_nodes((1, 2))
        g.add_grid_edges(ids, weights=0.01)
        g.add_grid_tedges(ids, np.array([[10.0, 0.0]]), np.array([[0.0, 10.0]]))
        self.assertAlmostEqual(g.maxflow(), 0.01)
        self.assertEqual(g.get_grid_segments(ids).tolist(), [[False, True]])
        # a structure's entries multiply the weights before the one scaling
        h = flowcut.Graph(scale=4)
        ids = h.add_grid_nodes((2,))
        h.add_grid_edges(ids, weights=0.25, structure=np.array([0, 0, 3]), symmetric=True)
        h.add_grid_tedges(ids, [5.0, 0.0], [0.0, 5.0])
        self.assertAlmostEqual(h.maxflow(), 0.75)
        # the same volume with and without a scale cuts alike
        rng = np.random.default_rng(7)
        w = rng.integers(1, 9, (6, 5, 4)).astype(float)
        src, snk = rng.integers(0, 20, (2, 6, 5, 4)).astype(float)
        cuts, flows = [], []
        for scale in (None, 1000):
            v = flowcut.Graph(scale=scale)
            vid = v.add_grid_nodes(w.shape)
            v.add_grid_edges(vid, w)
            v.add_grid_tedges(vid, src, snk)
            flows.append(v.maxflow())
            cuts.append(v.get_grid_segments(vid))
        self.assertAlmostEqual(flows[0], flows[1])
        self.assertTrue(np.array_equal(cuts[0], cuts[1]))


class TestGrid(unittest.TestCase):
    def hand_built(self, ids, weights, structure, symmetric, tsrc, tsnk):
        """The definition, one edge at a time, in a reference max-flow."""
        n = ids.size
        arcs = []
        centre = tuple(s // 2 for s in structure.shape)
        for p in itertools.product(*(range(s) for s in ids.shape)):
            for off in itertools.product(*(range(s) for s in structure.shape)):
                w = int(structure[off])
                d = tuple(o - c for o, c in zip(off, centre))
                q = tuple(a + b for a, b in zip(p, d))
                if not w or not any(d) or not all(0 <= x < s for x, s in zip(q, ids.shape)):
                    continue
                c = int(weights[p]) * w
                arcs.append((int(ids[p]), int(ids[q]), c))
                if symmetric:
                    arcs.append((int(ids[q]), int(ids[p]), c))
        for p in itertools.product(*(range(s) for s in ids.shape)):
            arcs += [("s", int(ids[p]), int(tsrc[p])), (int(ids[p]), "t", int(tsnk[p]))]
        return reference_maxflow(n, "s", "t", arcs)

    def test_neighbourhoods(self):
        for nd, conn in ((2, 4), (2, 8), (3, 6), (3, 18), (3, 26)):
            self.assertEqual(int(flowcut.neighbourhood(nd, conn).sum()), conn)
        self.assertEqual(int(flowcut.neighbourhood(3).sum()), 6)
        with self.assertRaisesRegex(ValueError, "connectivity 5"):
            flowcut.neighbourhood(2, 5)

    def test_grids_against_hand_built(self):
        rng = np.random.default_rng(3)
        cases = [((5, 6), 4), ((5, 6), 8), ((3, 4, 3), 6), ((3, 4, 3), 18), ((3, 3, 4), 26)]
        for shape, conn in cases:
            for symmetric in (False, True):
                with self.subTest(shape=shape, conn=conn, symmetric=symmetric):
                    st = flowcut.neighbourhood(len(shape), conn) * rng.integers(1, 4, (3,) * len(shape))
                    weights = rng.integers(0, 9, shape)
                    tsrc, tsnk = rng.integers(0, 40, shape), rng.integers(0, 40, shape)
                    g = flowcut.Graph()
                    ids = g.add_grid_nodes(shape)
                    g.add_grid_edges(ids, weights, st, symmetric)
                    g.add_grid_tedges(ids, tsrc, tsnk)
                    want, reach = self.hand_built(ids, weights, st, symmetric, tsrc, tsnk)
                    self.assertEqual(g.maxflow(engine="cpu", threads=1 + len(shape)), want)
                    # the engine's set-up is a part of its time
                    self.assertEqual(g.stats["engine"], "cpu")
                    self.assertEqual(g.stats["cpu_algorithm"], "bk")  # auto's pick for a grid
                    self.assertTrue(0 < g.stats["setup_seconds"] <= g.stats["solve_seconds"])
                    self.assertGreaterEqual(g.stats["blocks"], 1)
                    self.assertTrue(0 < g.stats["critical_seconds"] <= g.stats["work_seconds"] * (1 + 1e-9))
                    seg = g.get_grid_segments(ids)
                    self.assertEqual(seg.shape, ids.shape)
                    self.assertTrue(np.array_equal(seg, np.vectorize(lambda v: v in reach)(ids)))
        # pairs merged: one edge per neighbour pair of a 3 x 4 x 5 grid, 6-connected
        g = flowcut.Graph()
        ids = g.add_grid_nodes((3, 4, 5))
        g.add_grid_edges(ids, 1)
        self.assertEqual(g.get_edge_num(), 2 * 4 * 5 + 3 * 3 * 5 + 3 * 4 * 4)

    def test_scalar_weights_and_broadcast_tedges(self):
        g = flowcut.Graph()
        ids = g.add_grid_nodes((4, 4))
        g.add_grid_edges(ids, 10)
        src = np.zeros((4, 4), int)
        src[:, 0] = 100
        snk = np.zeros((4, 4), int)
        snk[:, 3] = 100
        g.add_grid_tedges(ids, src, snk)
        self.assertEqual(g.maxflow(), 4 * 10)  # one column of n-links
        seg = g.get_grid_segments(ids)
        self.assertFalse(seg[:, 0].any())
        self.assertTrue(seg[:, 3].all())

    def test_bad_arguments(self):
        g = flowcut.Graph()
        ids = g.add_grid_nodes((3, 3))
        with self.assertRaisesRegex(IndexError, "out of range"):
            g.add_edge(0, 9, 1, 1)
        with self.assertRaisesRegex(ValueError, ">= 0"):
            g.add_edge(0, 1, -1, 1)
        with self.assertRaisesRegex(ValueError, "2147483647"):
            g.add_edge(0, 1, 2**31 - 1, 1)
        with self.assertRaisesRegex(TypeError, "node ids"):
            g.add_grid_tedges(ids.astype(float), 1, 1)
        with self.assertRaisesRegex(ValueError, "odd sides"):
            g.add_grid_edges(ids, 1, np.ones((2, 2)))
        with self.assertRaisesRegex(ValueError, "structure must have 2"):
            g.add_grid_edges(ids, 1, np.ones((3, 3, 3)))
        with self.assertRaisesRegex(RuntimeError, "maxflow"):
            g.get_segment(0)
        with self.assertRaisesRegex(ValueError, "cpu_algorithm"):
            g.maxflow(cpu_algorithm="fastest")
        with self.assertRaisesRegex(ValueError, "scale"):
            flowcut.Graph(scale=0)
        g.maxflow()
        g.add_tedge(0, 1, 0)
        with self.assertRaisesRegex(RuntimeError, "changed"):
            g.get_grid_segments(ids)

    def test_gil_released(self):
        """A Python thread keeps running while a solve is in C."""
        rng = np.random.default_rng(1)
        g = flowcut.Graph()
        ids = g.add_grid_nodes((400, 400))
        g.add_grid_edges(ids, rng.integers(1, 200, (400, 400)), flowcut.neighbourhood(2, 8))
        g.add_grid_tedges(ids, rng.integers(0, 300, (400, 400)), rng.integers(0, 300, (400, 400)))
        ticks, stop = [], threading.Event()

        def spin():
            while not stop.is_set():
                ticks.append(time.perf_counter())

        th = threading.Thread(target=spin)
        th.start()
        time.sleep(0.01)
        t0 = time.perf_counter()
        g.maxflow(engine="cpu", cpu_algorithm="push-relabel")
        t1 = time.perf_counter()
        stop.set()
        th.join()
        inside = [t for t in ticks if t0 + 0.25 * (t1 - t0) < t < t0 + 0.75 * (t1 - t0)]
        self.assertGreater(t1 - t0, 0.01, "solve too short to tell")
        self.assertTrue(inside, "no Python thread ran during the solve")


DIMACS = """c small network
p max 6 10
n 1 s
n 6 t
a 1 2 16
a 1 3 13
a 2 3 10
a 3 2 4
a 2 4 12
a 4 3 9
a 3 5 14
a 5 4 7
a 4 6 20
a 5 6 4
"""


class TestProblem(unittest.TestCase):
    def setUp(self):
        self.path = os.path.join(tempfile.mkdtemp(), "p.max")
        with open(self.path, "w") as f:
            f.write(DIMACS)

    def arcs(self, caps):
        lines = [l.split() for l in DIMACS.splitlines() if l.startswith("a ")]
        return [(int(a) - 1, int(b) - 1, c) for (_, a, b, _), c in zip(lines, caps)]

    def test_solve_and_warm(self):
        caps = [int(l.split()[3]) for l in DIMACS.splitlines() if l.startswith("a ")]
        p = flowcut.read_dimacs(self.path)
        self.assertEqual((p.num_vertices, p.num_arcs, p.source, p.sink), (6, 10, 0, 5))
        r = p.maxflow(engine="cpu")
        self.assertEqual(r.value, 23)
        want, reach = reference_maxflow(6, 0, 5, self.arcs(caps))
        self.assertEqual(list(r.source_side), [v not in reach for v in range(6)])
        rng = np.random.default_rng(5)
        with p.dynamic(engine="cpu") as d:
            self.assertEqual(d.solve().value, 23)
            for batch in range(30):
                arcs = rng.choice(10, int(rng.integers(1, 4)), replace=False)
                new = rng.integers(0, 25, len(arcs))
                d.set_capacities(arcs, new)
                for a, c in zip(arcs, new):
                    caps[a] = int(c)
                r = d.solve()
                want, reach = reference_maxflow(6, 0, 5, self.arcs(caps))
                self.assertEqual(r.value, want)
                self.assertEqual(list(r.source_side), [v not in reach for v in range(6)])
            with self.assertRaises(IndexError):
                d.set_capacity(10, 1)
            with self.assertRaises(ValueError):
                d.set_capacity(0, -1)
        p.close()

    def test_bad_file(self):
        bad = self.path + ".bad"
        with open(bad, "w") as f:
            f.write("p max 2 1\nn 1 s\nn 2 t\na 1 x 3\n")
        with self.assertRaisesRegex(flowcut.FlowcutError, r"p.max.bad:4"):
            flowcut.read_dimacs(bad)
        with self.assertRaises(flowcut.FlowcutError):
            flowcut.read_dimacs(self.path + ".missing")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:], verbosity=1)
