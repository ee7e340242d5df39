#!/usr/bin/env python3
"""Standard-library PNG helper for the CLI tests (8-bit, non-interlaced):
  png_tool.py digest FILE            sha256 of the decoded samples and the size
  png_tool.py foreground FILE        1-based ids of non-zero pixels, one per line
  png_tool.py recode SEEDS MODE OUT  seeds (0/1/2) -> 'trimap' (128/255/0) or 'rgb' scribbles
  png_tool.py crop FILE X Y W H OUT  a rectangle of FILE
  png_tool.py halves W H OUT         seeds: left column foreground, right column background"""
import hashlib, struct, sys, zlib

def read(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    assert depth == 8 and interlace == 0
    ch = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw, stride, out, prev = zlib.decompress(idat), w * ch, bytearray(), bytearray(w * ch)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b, c = prev[i], prev[i - ch] if i >= ch else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    return w, h, ch, bytes(out)

def write(path, w, h, ch, pixels):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)
    ctype = {1: 0, 3: 2}[ch]
    raw = b"".join(b"\x00" + pixels[y * w * ch:(y + 1) * w * ch] for y in range(h))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0)) +
                           chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))

def main():
    cmd = sys.argv[1]
    if cmd == "halves":  # W H OUT: seeds with the left column foreground, the right one background
        w, h = int(sys.argv[2]), int(sys.argv[3])
        write(sys.argv[4], w, h, 1, bytes(1 if x == 0 else 2 if x == w - 1 else 0 for y in range(h) for x in range(w)))
        return
    w, h, ch, px = read(sys.argv[2])
    if cmd == "digest":
        print(w, h, ch, hashlib.sha256(px).hexdigest())
    elif cmd == "foreground":
        sys.stdout.write("".join(f"{i + 1}\n" for i in range(w * h) if px[i * ch]))
    elif cmd == "pixel":  # X Y: the first channel's value there
        x, y = int(sys.argv[3]), int(sys.argv[4])
        print(px[(y * w + x) * ch])
    elif cmd == "outside-zero":  # X,Y,W,H: 1 when every pixel outside the box is 0
        x0, y0, bw, bh = (int(v) for v in sys.argv[3].split(","))
        print(int(all(px[(y * w + x) * ch] == 0 for y in range(h) for x in range(w)
                      if not (x0 <= x < x0 + bw and y0 <= y < y0 + bh))))
    elif cmd == "iou":  # OTHER: intersection over union of the two masks' foregrounds, 3 decimals
        w2, h2, ch2, px2 = read(sys.argv[3])
        if (w2, h2) != (w, h):
            sys.exit("iou: %dx%d against %dx%d" % (w, h, w2, h2))
        a = [px[i * ch] != 0 for i in range(w * h)]
        b = [px2[i * ch2] != 0 for i in range(w * h)]
        union = sum(x or y for x, y in zip(a, b))
        print("%.3f" % (sum(x and y for x, y in zip(a, b)) / union if union else 1.0))
    elif cmd == "crop":  # X Y W H OUT
        x0, y0, cw, chh = (int(v) for v in sys.argv[3:7])
        write(sys.argv[7], cw, chh, ch, b"".join(px[((y0 + y) * w + x0) * ch:((y0 + y) * w + x0 + cw) * ch] for y in range(chh)))
    elif cmd == "recode":
        if sys.argv[3] == "ones":  # a mask as 0 / 1 labels
            write(sys.argv[4], w, h, 1, bytes(1 if px[i * ch] else 0 for i in range(w * h)))
        elif sys.argv[3] == "grey-rgb":  # the labels in all three channels (an RGB-saved label image)
            write(sys.argv[4], w, h, 3, b"".join(bytes((px[i * ch],) * 3) for i in range(w * h)))
        elif sys.argv[3] == "trimap":
            write(sys.argv[4], w, h, 1, bytes({0: 128, 1: 255, 2: 0}.get(v, 128) for v in px))
        else:
            table = {1: b"\xff\x00\x00", 2: b"\x00\x00\xff"}
            write(sys.argv[4], w, h, 3, b"".join(table.get(v, b"\x80\x80\x80") for v in px))


if __name__ == "__main__":
    main()
