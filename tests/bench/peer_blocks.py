#!/usr/bin/env python3
"""Block file for the peers' parallel BK (`demo FILE.bbk liusun`, Jensen et
al.'s reimplementation of Liu & Sun's bottom-up merging, which reads
FILE.bbk.blk): K row bands of equal size over the N pixel vertices. flowcut's
engine also cuts an image network into row bands (of equal arc counts,
which on a grid are nearly equal sizes).

    peer_blocks.py FILE.bbk.blk N K
"""
import array
import struct
import sys

if len(sys.argv) != 4:
    sys.exit(__doc__)
try:
    path, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
except ValueError:
    sys.exit(f"peer_blocks.py: N and K must be integers, not {sys.argv[2]!r} and {sys.argv[3]!r}")
if n < 1 or not 1 <= k <= 65535:
    sys.exit("peer_blocks.py: N must be positive and K within 1..65535")
blocks = array.array("H")
for b in range(k):
    blocks.extend(array.array("H", [b]) * ((b + 1) * n // k - b * n // k))
with open(path, "wb") as out:
    out.write(struct.pack("<QH", n, k))  # uint64 vertices, uint16 blocks, then a uint16 a vertex
    out.write(blocks.tobytes())
