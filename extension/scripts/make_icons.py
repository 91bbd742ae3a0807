"""Draws the extension's PNG icons (a lens over a tag) with the standard library only.

Run from extension/: python3 scripts/make_icons.py
"""

import math
import struct
import zlib
from pathlib import Path

SIZES = (16, 32, 48, 128)
SUPER = 4  # samples per pixel side, for smooth edges
INDIGO, WHITE, AMBER = (67, 56, 202), (255, 255, 255), (245, 158, 11)


def colour_at(x: float, y: float) -> tuple[int, int, int, int]:
    """The colour of the unit-square point (x, y), from the top layer down."""
    r = 0.2  # corner radius of the background square
    cx, cy = min(max(x, r), 1 - r), min(max(y, r), 1 - r)
    if math.hypot(x - cx, y - cy) > r:
        return (0, 0, 0, 0)
    lens = math.hypot(x - 0.43, y - 0.43)
    if 0.17 <= lens <= 0.27:
        return (*WHITE, 255)
    # the handle: a thick segment from the lens towards the lower right corner
    t = max(0.0, min(1.0, ((x - 0.62) + (y - 0.62)) / 0.36))
    hx, hy = 0.62 + 0.18 * t, 0.62 + 0.18 * t
    if math.hypot(x - hx, y - hy) <= 0.075:
        return (*WHITE, 255)
    if lens < 0.1:
        return (*AMBER, 255)
    return (*INDIGO, 255)


def render(size: int) -> bytes:
    rows = []
    n = size * SUPER
    for py in range(size):
        row = bytearray([0])
        for px in range(size):
            acc = [0, 0, 0, 0]
            for sy in range(SUPER):
                for sx in range(SUPER):
                    c = colour_at((px * SUPER + sx + 0.5) / n, (py * SUPER + sy + 0.5) / n)
                    acc = [
                        a + b * (c[3] if i < 3 else 1)
                        for i, (a, b) in enumerate(zip(acc, c, strict=True))
                    ]
            alpha = acc[3] / SUPER**2
            rgb = [round(acc[i] / acc[3]) if acc[3] else 0 for i in range(3)]
            row += bytes([*rgb, round(alpha)])
        rows.append(bytes(row))
    return b"".join(rows)


def png(size: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    raw = zlib.compress(render(size), 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


if __name__ == "__main__":
    out = Path(__file__).resolve().parent.parent / "icons"
    for size in SIZES:
        (out / f"icon-{size}.png").write_bytes(png(size))
        print(f"icons/icon-{size}.png")
