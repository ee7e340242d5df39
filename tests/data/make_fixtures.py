#!/usr/bin/python3
"""Writes the small image fixtures of the image tests (kept for reproducibility)."""
import struct, zlib
import cv2
import numpy as np

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)

def png(w, h, depth, ctype, raw, extra=b""):
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0)) +
            extra + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))

# 4x2 palette image, indices 0 1 2 0 / 2 1 0 1 (palette colours unrelated to indices)
rows = [bytes([0, 0, 1, 2, 0]), bytes([0, 2, 1, 0, 1])]
plte = chunk(b"PLTE", bytes([9, 9, 9, 200, 10, 10, 10, 10, 200]))
open("seeds-palette.png", "wb").write(png(4, 2, 8, 3, b"".join(rows), plte))
# 200000 x 200000 header with no pixel data: must fail before allocating
open("huge-header.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 200000, 200000, 8, 2, 0, 0, 0)))
# 16-bit grey+alpha 2x2
raw = b"".join(b"\x00" + struct.pack(">HHHH", 65535, 65535, 0, 65535) for _ in range(2))
open("grey16-alpha.png", "wb").write(png(2, 2, 16, 4, raw))
# JPEG 16x8: left half red, right half blue; and the same with EXIF orientation 6
img = np.zeros((8, 16, 3), np.uint8)
img[:, :8] = (0, 0, 255)
img[:, 8:] = (255, 0, 0)
ok, jpg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 95])
jpg = jpg.tobytes()
open("tiny.jpg", "wb").write(jpg)
tiff = b"MM\x00\x2a\x00\x00\x00\x08" + struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, 6, 0) + b"\x00\x00\x00\x00"
app1 = b"Exif\x00\x00" + tiff
open("tiny-exif6.jpg", "wb").write(jpg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpg[2:])
open("truncated.jpg", "wb").write(jpg[: len(jpg) // 2])
cv2.imwrite("tiny.bmp", img)
