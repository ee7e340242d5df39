#!/usr/bin/python3
"""PyMaxflow's tutorial and simple examples as their users write them, with
only the import line changed; prints what PyMaxflow's documentation says
they print (checked by test_python.py against the expected text).

usage: pymaxflow_tutorial.py MODULE_DIR"""
import sys

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402

import flowcut as maxflow  # noqa: E402  (PyMaxflow: import maxflow)

# A flow network with two nodes
g = maxflow.Graph[int](2, 2)
nodes = g.add_nodes(2)
g.add_edge(nodes[0], nodes[1], 1, 2)
g.add_tedge(nodes[0], 2, 5)
g.add_tedge(nodes[1], 9, 4)
flow = g.maxflow()
print(f"Maximum flow: {flow}")
print(f"Segment of the node 0: {g.get_segment(nodes[0])}")
print(f"Segment of the node 1: {g.get_segment(nodes[1])}")

# the same with float capacities
g = maxflow.Graph[float](2, 2)
nodes = g.add_nodes(2)
g.add_edge(nodes[0], nodes[1], 0.5, 1.25)
g.add_tedge(nodes[0], 2.5, 5)
g.add_tedge(nodes[1], 9, 4.75)
print(f"Maximum flow: {g.maxflow()}")
print(f"Segments: {g.get_segment(nodes[0])} {g.get_segment(nodes[1])}")

# Binary image restoration: a noisy square, 4-connected grid, K = 50
rng = np.random.default_rng(0)
clean = np.zeros((40, 50), np.uint8)
clean[10:30, 15:40] = 255
img = np.clip(clean.astype(float) + rng.normal(0, 90, clean.shape), 0, 255).astype(np.uint8)
g = maxflow.Graph[int]()
nodeids = g.add_grid_nodes(img.shape)
g.add_grid_edges(nodeids, 50)
g.add_grid_tedges(nodeids, img, 255 - img)
g.maxflow()
sgm = g.get_grid_segments(nodeids)
img2 = np.int64(np.logical_not(sgm))
print(f"restored pixels wrong: {int((img2 != (clean > 0)).sum())} of {img2.size}")

# negative terminal capacities (PyMaxflow allows them)
g = maxflow.Graph[int]()
n = g.add_nodes(2)
g.add_tedge(n[0], -3, 2)
g.add_tedge(n[1], 4, -1)
g.add_edge(n[0], n[1], 1, 1)
print(f"Maximum flow: {g.maxflow()} segments {g.get_segment(n[0])} {g.get_segment(n[1])}")
