#!/usr/bin/env python3
"""The bundled sample (examples/coffee.png and its seeds) resized to labelled
sizes in megapixels: OUT/img{SIZE}.png (or .jpg, quality 92, with --jpeg) and
OUT/seeds{SIZE}.png. The scale comes from the photo's own size, so that a
"12" is 12 Mpx whatever the sample's size. Needs OpenCV.

    upscale_sample.py [--jpeg] OUT SIZE...
"""
import os
import sys

import cv2

args = sys.argv[1:]
jpeg = "--jpeg" in args
args = [a for a in args if a != "--jpeg"]
if len(args) < 2:
    sys.exit(__doc__)
out, sizes = args[0], args[1:]
examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
img = cv2.imread(os.path.join(examples, "coffee.png"))
seeds = cv2.imread(os.path.join(examples, "coffee-seeds.png"), cv2.IMREAD_GRAYSCALE)
H, W = seeds.shape
for name in sizes:
    s = (float(name) * 1e6 / (W * H)) ** 0.5
    w, h = round(W * s), round(H * s)
    photo = cv2.resize(img, (w, h), interpolation=cv2.INTER_CUBIC)
    if jpeg:
        cv2.imwrite(f"{out}/img{name}.jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 92])
    else:
        cv2.imwrite(f"{out}/img{name}.png", photo)
    cv2.imwrite(f"{out}/seeds{name}.png", cv2.resize(seeds, (w, h), interpolation=cv2.INTER_NEAREST))
