#!/usr/bin/python3
"""Writes the hand-made image fixtures of the loader tests: one tiny valid
file of each stb/PNM format (4x2 pixels, the colours below) and crafted
damaged files. Standard library only; tiny.jpg must already exist (it comes
from make_fixtures.py). Run in tests/data."""
import struct, zlib

# 4x2 RGB, top row first; grey samples for the one-channel formats
RGB = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255),
       (0, 0, 0), (128, 128, 128), (10, 20, 30), (200, 100, 50)]
GREY = [0, 1, 2, 3, 128, 200, 255, 7]
W, H = 4, 2


def out(name, data):
    open(name, "wb").write(data)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)


# --- JPEG whose EXIF IFD offset (0xFFFFFFFE) wraps a 32-bit bound check
jpg = open("tiny.jpg", "rb").read()
app1 = b"Exif\x00\x00" + b"MM\x00*" + b"\xff\xff\xff\xfe" + b"\x00\x00\x00\x00"
out("exif-wrap.jpg", jpg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpg[2:])

# --- PNG 1x100000 grey whose IDAT holds 10 rows: libpng fails in png_read_image
ihdr = struct.pack(">IIBBBBB", 1, 100000, 8, 0, 0, 0, 0)
out("corrupt-tall.png", b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
    chunk(b"IDAT", zlib.compress(b"\x00\x07" * 10)) + chunk(b"IEND", b""))

# --- BMP: 154 bytes whose header claims 16000x16000 at 24 bits
bmp = b"BM" + struct.pack("<IHHI", 154, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 16000, 16000, 1, 24, 0, 0, 0, 0, 0, 0)
out("huge-header.bmp", bmp + bytes(154 - len(bmp)))

# --- TGA: uncompressed 24-bit (bottom-up, BGR), RLE 24-bit, colour-mapped 8-bit
def tga_header(cmtype, itype, cmlen, cmbits, bpp, desc=0):
    return struct.pack("<BBBHHBHHHHBB", 0, cmtype, itype, 0, cmlen, cmbits, 0, 0, W, H, bpp, desc)

bottom_up = RGB[W:] + RGB[:W]
out("tiny.tga", tga_header(0, 2, 0, 0, 24) + b"".join(bytes((b, g, r)) for r, g, b in bottom_up))
# top-down (descriptor bit 5): a run of the 2 first pixels would need them equal, so
# one raw packet of 3, one run of 1, one raw packet of 4
px = [bytes((b, g, r)) for r, g, b in RGB]
rle = bytes([2]) + b"".join(px[0:3]) + bytes([0x80]) + px[3] + bytes([3]) + b"".join(px[4:8])
out("tiny-rle.tga", tga_header(0, 10, 0, 0, 24, 0x20) + rle)
palette = b"".join(bytes((b, g, r)) for r, g, b in RGB)
out("tiny-cmap.tga", tga_header(1, 1, 8, 24, 8, 0x20) + palette + bytes(range(8)))

# --- PNM: binary and ASCII grey and colour, and 16-bit binary grey
out("tiny-p5.pgm", b"P5\n# a comment\n4 2\n255\n" + bytes(GREY))
out("tiny-p6.ppm", b"P6 4 2 255\n" + b"".join(bytes(p) for p in RGB))
out("tiny-p2.pgm", b"P2\n4 2\n255\n" + " ".join(map(str, GREY)).encode() + b"\n")
out("tiny-p3.ppm", b"P3\n# colours\n4 2\n255\n" + "\n".join(" ".join(map(str, p)) for p in RGB).encode() + b"\n")
out("tiny16-p5.pgm", b"P5\n4 2\n65535\n" + b"".join(struct.pack(">H", v * 257) for v in GREY))

# --- GIF 87a, global palette of the 8 colours, one frame of indices 0..7
def lzw(indices, min_size):
    # a clear code before every second literal keeps the code width at
    # min_size + 1 (no table entry reaches 2**(min_size + 1))
    clear, eoi, width = 1 << min_size, (1 << min_size) + 1, min_size + 1
    codes = []
    for i, v in enumerate(indices):
        if i % 2 == 0:
            codes.append(clear)
        codes.append(v)
    codes.append(eoi)
    bits, nbits, data = 0, 0, bytearray()
    for c in codes:
        bits |= c << nbits
        nbits += width
        while nbits >= 8:
            data.append(bits & 0xff)
            bits >>= 8
            nbits -= 8
    if nbits:
        data.append(bits & 0xff)
    return bytes(data)

stream = lzw(list(range(8)), 3)
gif = (b"GIF87a" + struct.pack("<HHBBB", W, H, 0x82, 0, 0) + b"".join(bytes(p) for p in RGB) +
       b"," + struct.pack("<HHHHB", 0, 0, W, H, 0) + bytes([3, len(stream)]) + stream + b"\x00;")
out("tiny.gif", gif)

# --- Radiance HDR, a format stb_image reads but the loader does not offer
out("tiny.hdr", b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 1\n" + bytes((128, 64, 32, 129)))
