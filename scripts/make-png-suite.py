#!/usr/bin/env python3
"""Writes Tests/SentioImageTests/Data/pngsuite/: one small PNG for every colour type, bit depth
and interlace method (with zlib and struct only, so nothing but Python is needed), and
expected.json with the 8-bit RGBA value every pixel must decode to.

The expected values are worked out from the PNG specification, not by a decoder:
- a sample of bit depth d < 8 scales to 8 bits as round(v · 255 / (2^d − 1));
- a 16-bit sample v reduces to 8 bits as round(v / 257);
- palette entries are taken as stored; tRNS gives palette alpha, other types are opaque.
16-bit samples are chosen as multiples of 257 plus a small offset, so the reduction is
unambiguous whichever rounding a decoder uses.
"""
import json
import os
import struct
import zlib

W, H = 13, 11  # odd sizes exercise the partial Adam7 passes
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "Tests", "SentioImageTests", "Data", "pngsuite")


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def sample(x, y, k, depth):
    """A deterministic test sample for channel k of pixel (x, y) at bit depth `depth`."""
    if depth == 16:
        return ((x * 17 + y * 29 + k * 71) % 255) * 257 + (x + y) % 3
    return (x * 3 + y * 5 + k * 7) % (1 << depth)


def to8(v, depth):
    if depth == 16:
        return round(v / 257)
    return round(v * 255 / ((1 << depth) - 1))


def pack_row(values, depth):
    if depth == 16:
        return b"".join(struct.pack(">H", v) for v in values)
    if depth == 8:
        return bytes(values)
    out, acc, bits = bytearray(), 0, 0
    for v in values:
        acc = (acc << depth) | v
        bits += depth
        if bits == 8:
            out.append(acc)
            acc, bits = 0, 0
    if bits:
        out.append(acc << (8 - bits))
    return bytes(out)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
PALETTE = [((i * 37) % 256, (i * 91) % 256, (i * 53 + 11) % 256) for i in range(256)]


def make(color_type, depth, interlace):
    n = CHANNELS[color_type]
    pixels = [[[sample(x, y, k, depth) for k in range(n)] for x in range(W)] for y in range(H)]
    raw = bytearray()
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    for x0, y0, dx, dy in passes:
        xs = list(range(x0, W, dx))
        if not xs:
            continue
        for y in range(y0, H, dy):
            raw.append(0)  # filter type None
            raw += pack_row([v for x in xs for v in pixels[y][x]], depth)
    data = b"\x89PNG\r\n\x1a\n"
    data += chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, depth, color_type, 0, 0, interlace))
    alphas = None
    if color_type == 3:
        entries = 1 << depth
        data += chunk(b"PLTE", b"".join(bytes(PALETTE[i]) for i in range(entries)))
        alphas = [(i * 97) % 256 for i in range(entries)]
        data += chunk(b"tRNS", bytes(alphas))
    data += chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    expected = []
    for y in range(H):
        for x in range(W):
            p = pixels[y][x]
            if color_type == 3:
                rgba = list(PALETTE[p[0]]) + [alphas[p[0]]]
            else:
                v = [to8(s, depth) for s in p]
                rgba = {1: lambda: [v[0]] * 3 + [255], 2: lambda: [v[0]] * 3 + [v[1]],
                        3: lambda: v + [255], 4: lambda: v}[n]()
            expected.append(rgba)
    return data, expected


def main():
    os.makedirs(OUT, exist_ok=True)
    manifest = {}
    for color_type, depths in [(0, [1, 2, 4, 8, 16]), (2, [8, 16]), (3, [1, 2, 4, 8]), (4, [8, 16]), (6, [8, 16])]:
        for depth in depths:
            for interlace in (0, 1):
                name = f"type{color_type}_depth{depth}_{'adam7' if interlace else 'plain'}.png"
                data, expected = make(color_type, depth, interlace)
                with open(os.path.join(OUT, name), "wb") as f:
                    f.write(data)
                manifest[name] = {"width": W, "height": H, "colorType": color_type, "bitDepth": depth,
                                  "interlaced": bool(interlace), "rgba": [c for px in expected for c in px]}
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(manifest, f, separators=(",", ":"), sort_keys=True)
    print(f"wrote {len(manifest)} PNGs to {OUT}")


if __name__ == "__main__":
    main()
