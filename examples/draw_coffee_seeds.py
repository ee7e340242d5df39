#!/usr/bin/python3
"""Draws the scribbles of examples/coffee-seeds.png (kept for reproducibility).
Seed values: 1 foreground (cup, saucer, spoon), 2 background (table), 0 unmarked."""
import cv2
import numpy as np

seeds = np.zeros((400, 600), np.uint8)
fg = [((235, 150), (345, 145)), ((195, 70), (192, 150)), ((110, 260), (150, 310)),
      ((425, 215), (450, 270)), ((355, 280), (385, 295)), ((215, 250), (230, 290)),
      ((260, 215), (330, 240))]
bg = [((15, 340), (60, 385)), ((470, 30), (590, 45)), ((510, 340), (590, 385)),
      ((15, 30), (120, 40)), ((200, 392), (420, 392)), ((20, 150), (40, 250)),
      ((560, 120), (560, 260))]
for a, b in fg:
    cv2.line(seeds, a, b, 1, 5)
for a, b in bg:
    cv2.line(seeds, a, b, 2, 5)
cv2.imwrite("coffee-seeds.png", seeds)
