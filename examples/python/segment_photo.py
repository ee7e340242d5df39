#!/usr/bin/python3
"""Segment the sample photo from Python, twice: from files, and from numpy
arrays (what a program that already holds the pixels does).

  PYTHONPATH=build/python python3 examples/python/segment_photo.py   # build tree
  python3 examples/python/segment_photo.py                           # installed"""
import os
import sys

import numpy as np

import flowcut

HERE = os.path.dirname(os.path.abspath(__file__))
photo = os.path.join(HERE, "..", "coffee.png")
seeds = os.path.join(HERE, "..", "coffee-seeds.png")

# 1. files in, mask array out (options as on the command line)
mask, info = flowcut.segment_files(photo, seeds, lambda_=150, return_info=True)
print(f"files: {mask.shape[1]}x{mask.shape[0]}, {info['foreground_pixels']} foreground pixels, "
      f"{info['engine']} engine, solve {info['solve_seconds'] * 1e3:.1f} ms")

# 2. arrays in: decode with Pillow when it is installed (Debian: python3-pil)
try:
    from PIL import Image
except ImportError:
    sys.exit("arrays: skipped (Pillow is not installed; Debian: python3-pil)")
rgb = np.asarray(Image.open(photo).convert("RGB"))
labels = np.asarray(Image.open(seeds))       # 0 unmarked, 1 foreground, 2 background
mask2 = flowcut.segment(rgb, labels, lambda_=150)
assert np.array_equal(mask, mask2)
cut = np.dstack([rgb, mask2])                # RGBA cut-out
Image.fromarray(cut).save(os.path.join(os.getcwd(), "coffee-cutout.png"))
print("arrays: same mask; wrote coffee-cutout.png")
