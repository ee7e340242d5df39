#!/usr/bin/python3
"""Python module costs: the call overhead beyond the C solve (medians of
repeats), and a 3-D volume (default 256^3, 6-connected) built and solved
on each engine available.

usage: PYTHONPATH=BUILD/python python_bench.py [--size 256] [--repeats 50] [--engines cpu,gpu]"""
import argparse
import statistics
import time

import numpy as np

import flowcut


def overhead(repeats):
    rows = []
    # a two-node graph: the whole call is overhead around a microsecond solve
    t = []
    for _ in range(repeats):
        g = flowcut.Graph()
        g.add_nodes(2)
        g.add_edge(0, 1, 1, 2)
        g.add_tedge(0, 2, 5)
        g.add_tedge(1, 9, 4)
        t0 = time.perf_counter()
        g.maxflow(engine="cpu")
        t.append(time.perf_counter() - t0 - g.stats["solve_seconds"])
    rows.append(("Graph.maxflow(), 2 nodes", statistics.median(t)))
    # segment() on a 64 x 64 photo: wall time less the library's stage times
    rng = np.random.default_rng(0)
    img = rng.integers(0, 255, (64, 64, 3), dtype=np.uint8)
    seeds = np.zeros((64, 64), np.uint8)
    seeds[:, :4], seeds[:, -4:] = 1, 2
    t = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        _, info = flowcut.segment(img, seeds, engine="cpu", return_info=True)
        t.append(time.perf_counter() - t0 - info["model_seconds"] - info["build_seconds"] - info["solve_seconds"])
    rows.append(("segment(), 64 x 64 photo", statistics.median(t)))
    for name, s in rows:
        print(f"overhead {name:28s} {s * 1e3:7.3f} ms (median of {repeats})")


def volume(n, engine):
    rng = np.random.default_rng(0)
    z, y, x = np.ogrid[:n, :n, :n]
    truth = (x - n / 2) ** 2 + (y - n / 2) ** 2 + (z - n / 2) ** 2 < (n / 3) ** 2
    vol = np.where(truth, 140.0, 100.0) + rng.normal(0, 25, truth.shape)
    cost_fg = np.rint((vol - 140.0) ** 2 / 50).astype(np.int64)
    cost_bg = np.rint((vol - 100.0) ** 2 / 50).astype(np.int64)
    del vol
    t0 = time.perf_counter()
    g = flowcut.Graph()
    ids = g.add_grid_nodes((n, n, n))
    g.add_grid_edges(ids, 12)
    g.add_grid_tedges(ids, cost_bg, cost_fg)
    t1 = time.perf_counter()
    flow = g.maxflow(engine=engine)
    t2 = time.perf_counter()
    acc = np.mean(~g.get_grid_segments(ids) == truth)
    print(f"volume {n}^3 6-conn {engine}: build {t1 - t0:.2f} s, maxflow() {t2 - t1:.2f} s "
          f"(engine {g.stats['solve_seconds']:.2f} s, {g.stats['device']}), flow {flow}, accuracy {acc * 100:.2f} %")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--engines", default="cpu,gpu")
    a = ap.parse_args()
    overhead(a.repeats)
    for e in a.engines.split(","):
        if e == "gpu" and not flowcut.gpu_available():
            print("volume gpu: skipped: no CUDA device")
            continue
        volume(a.size, e)


if __name__ == "__main__":
    main()
