#!/usr/bin/env python3
"""Generates Sources/IVScanner/Data/digits.tsv: the shapes of the digits 0-9 in Lato Semibold,
the typeface the detail screen's costs are set in (of Lato's weights it fits the digits of
the 47 fixture screenshots best: mean overlap 0.87, against 0.86 Bold and 0.83 Medium). The
scanner matches them against digits whose lower part another app's toast hides (see
docs/iv-scanner.md); Tesseract needs whole glyphs.

Lato is by Łukasz Dziedzic, under the SIL Open Font License 1.1; Debian ships it as
fonts-lato. Needs Pillow:

    scripts/make-digit-templates.py [/usr/share/fonts/truetype/lato/Lato-Semibold.ttf]

Each row: the digit, its width and height in pixels (each digit cropped to its ink, about 64
pixels tall), and its rows top to bottom, '#' ink and '.' paper, separated by '/'.
"""
import os
import sys

from PIL import Image, ImageDraw, ImageFont

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Sources", "IVScanner", "Data", "digits.tsv")
FONT = "/usr/share/fonts/truetype/lato/Lato-Semibold.ttf"
SIZE = 88  # points: the digits come out about 64 pixels tall


def main():
    font_path = sys.argv[1] if len(sys.argv) > 1 else FONT
    if not os.path.exists(font_path):
        sys.exit(f"make-digit-templates: no font at {font_path} (apt install fonts-lato)")
    font = ImageFont.truetype(font_path, SIZE)
    lines = ["digit\twidth\theight\trows"]
    for digit in "0123456789":
        canvas = Image.new("L", (2 * SIZE, 2 * SIZE), 255)
        ImageDraw.Draw(canvas).text((SIZE // 4, SIZE // 4), digit, font=font, fill=0)
        ink = canvas.point(lambda v: 255 if v < 128 else 0)
        left, top, right, bottom = ink.getbbox()
        glyph = canvas.crop((left, top, right, bottom))
        rows = ["".join("#" if glyph.getpixel((x, y)) < 128 else "." for x in range(glyph.width)) for y in range(glyph.height)]
        lines.append(f"{digit}\t{glyph.width}\t{glyph.height}\t{'/'.join(rows)}")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"make-digit-templates: {OUT}")


if __name__ == "__main__":
    main()
