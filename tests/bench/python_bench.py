#!/usr/bin/python3
"""Python module costs: the call overhead beyond the C solve (medians of
repeats), a 3-D volume (default 256^3, 6-connected) built and solved
on each engine available, and many small 2-D grids solved one maxflow()
at a time against maxflow_many() (one GPU launch for up to 64).

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


def many(count, engine):
    """count noisy 375 x 500 grids (8-connected, a disc in the middle): each
    graph's maxflow() in turn against maxflow_many() on all of them."""
    rng = np.random.default_rng(1)
    y, x = np.ogrid[:375, :500]
    disc = (x - 250) ** 2 + (y - 187) ** 2 < 120 ** 2
    graphs = []
    for _ in range(count):
        img = np.where(disc, 140.0, 100.0) + rng.normal(0, 30, disc.shape)
        g = flowcut.Graph()
        ids = g.add_grid_nodes(disc.shape)
        g.add_grid_edges(ids, 20, flowcut.neighbourhood(2, 8))
        g.add_grid_tedges(ids, np.rint((img - 100.0) ** 2 / 40).astype(np.int64),
                          np.rint((img - 140.0) ** 2 / 40).astype(np.int64))
        graphs.append(g)
    t0 = time.perf_counter()
    one = [g.maxflow(engine=engine) for g in graphs]
    t1 = time.perf_counter()
    all_ = flowcut.maxflow_many(graphs, engine=engine)
    t2 = time.perf_counter()
    assert one == all_, "maxflow_many differs from maxflow()"
    print(f"many {count} grids 375x500 {engine}: maxflow() each {(t1 - t0) / count * 1e3:.1f} ms a graph, "
          f"maxflow_many() {(t2 - t1) / count * 1e3:.1f} ms a graph ({(t1 - t0) / (t2 - t1):.2f}x)")


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
        many(32, e)


if __name__ == "__main__":
    main()
