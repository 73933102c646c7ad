#!/usr/bin/env python3
"""The home-screen icons (issue 36, item 5), drawn from the favicon's design (favicon.svg: an
indigo rounded square, a white ring and dot) at the sizes phones ask for: 180 (iPhone's
apple-touch-icon), 192 and 512 (the manifest), and a 512 "maskable" one whose ring sits inside the
central 80 % safe zone Android crops to. Pillow draws at 4× and scales down for smooth edges.

    python3 scripts/make-icons.py Sources/SentioServer/Public/icons
"""
import os, sys
from PIL import Image, ImageDraw

INDIGO, WHITE = (79, 70, 229, 255), (255, 255, 255, 255)


def icon(size, maskable=False):
    k = 4
    s = size * k
    image = Image.new("RGBA", (s, s), INDIGO if maskable else (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    if not maskable:
        draw.rounded_rectangle((0, 0, s - 1, s - 1), radius=s * 8 // 32, fill=INDIGO)
    scale = s / 32 * (0.72 if maskable else 1)  # maskable: the ring within the safe zone
    c, r, w, dot = s / 2, 7 * scale, 3 * scale, 2.5 * scale
    draw.ellipse((c - r - w / 2, c - r - w / 2, c + r + w / 2, c + r + w / 2), fill=WHITE)
    draw.ellipse((c - r + w / 2, c - r + w / 2, c + r - w / 2, c + r - w / 2), fill=INDIGO)
    draw.ellipse((c - dot, c - dot, c + dot, c + dot), fill=WHITE)
    return image.resize((size, size), Image.LANCZOS)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "Sources/SentioServer/Public/icons"
    os.makedirs(out, exist_ok=True)
    for size in (180, 192, 512):
        icon(size).save(os.path.join(out, f"icon-{size}.png"), optimize=True)
    icon(512, maskable=True).save(os.path.join(out, "icon-maskable-512.png"), optimize=True)


if __name__ == "__main__":
    main()
