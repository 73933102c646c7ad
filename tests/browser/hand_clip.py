"""The gestures page's fake-camera clip, built from fixture hand photos (faces/hands.tsv):

- open hand: hands/handtrackjs_3.jpg (open palm; thumb–index 1.49, index–middle 0.84 of the hand's size);
- pinch: hands/mp_gesture_call_17d804b5-….jpg cropped to its lower right (x 211–384, y 150–512), the hand resting on the table, whose thumb
  and index tips nearly touch (0.10 of the hand's size: a pinch by the lessons' rule; the fixtures
  have no photo taken as a pinch);
- pen: two straight fingers held together, constructed (the fixtures have no such photo) from
  hands/mprs_victory.jpg: above the knuckles each finger of the V is sheared towards the other
  until they lie side by side (`pen_photo`), the photo stretched 1.45 times in height (its palm
  is tilted back, and two touching fingertips were 0.28–0.33 of the shortened hand's size apart,
  over the pen's 0.25; stretched they read 0.15–0.27) and cropped to the hand; the landmarks
  read both fingers straight (3-D reach 2.4–3.4, tips past the middle joints 1.3–1.5);
- curled: golden_mediapipe/ms_android_hand_thumb_up.jpg, whose curled index and middle tips touch
  (0.21): the pen stayed down on it before issue #41; now it must not.

The pen and curled photos move across the frame 8 px per frame. Each frame is the photo
letterboxed into 640×480 on grey, with its segment marked in the top-left 16×16 pixels (red:
open, green: pinch, cyan: pen, blue: curled; for the moving ones the red channel is 4 × the
frame's index in its segment), so the page's replies can be matched to what the camera showed.
Segments (frames at 30/s): open 45, pinch 75, open 30, pen 60, open 30, curled 60, open 30.
"""
import pathlib, subprocess

import numpy
from PIL import Image

SEGMENTS = [("open", 45), ("pinch", 75), ("open", 30), ("pen", 60), ("open", 30), ("curled", 60), ("open", 30)]
MOVING = {"pen": 200, "curled": 0}  # the marker's green level
PEN_STEP = 8  # pixels per frame
PEN_START = -236


def pen_photo(victory):
    """Two straight fingers held together from the 418×418 victory photo: above the knuckle line
    (y 254) each side of the V's bisector (x 134.5) is sheared towards it, 0.35 px per px of
    height, fading out 60–110 px from it so the background far off is left; then stretched 1.45
    times in height and cropped to the hand. Each finger keeps its shape (a shear along x)."""
    a = numpy.asarray(victory, dtype=numpy.float32)
    h, w = a.shape[:2]
    ys, xs = numpy.mgrid[0:h, 0:w].astype(numpy.float32)
    side = numpy.where(xs > 134.5, 1.0, -1.0)
    fade = numpy.clip((110 - numpy.abs(xs - 134.5)) / 50, 0, 1)
    sx = numpy.clip(xs + side * 0.35 * fade * numpy.clip(254 - ys, 0, None), 0, w - 1.001)
    x0 = numpy.floor(sx).astype(int)
    f = (sx - x0)[..., None]
    sheared = a[ys.astype(int), x0] * (1 - f) + a[ys.astype(int), x0 + 1] * f
    out = Image.fromarray(sheared.clip(0, 255).astype(numpy.uint8))
    return out.resize((w, round(h * 1.45)), Image.LANCZOS).crop((0, 180, 300, 606))


def sources(fixtures):
    hands = pathlib.Path(fixtures) / "faces"
    pinch = Image.open(hands / "hands" / "mp_gesture_call_17d804b5-7118-462d-8191-58d764f591b8.jpg").convert("RGB")
    return {
        "open": Image.open(hands / "hands" / "handtrackjs_3.jpg").convert("RGB"),
        "pinch": pinch.crop((211, 150, 384, 512)),
        "pen": pen_photo(Image.open(hands / "hands" / "mprs_victory.jpg").convert("RGB")),
        "curled": Image.open(hands / "golden_mediapipe" / "ms_android_hand_thumb_up.jpg").convert("RGB"),
    }


def letterbox(photo, dx=0):
    frame = Image.new("RGB", (640, 480), (128, 128, 128))
    s = min(640 / photo.width, 480 / photo.height)
    w, h = round(photo.width * s), round(photo.height * s)
    frame.paste(photo.resize((w, h), Image.LANCZOS), ((640 - w) // 2 + dx, (480 - h) // 2))
    return frame, s


def frames(fixtures):
    src = sources(fixtures)
    for kind, count in SEGMENTS:
        for i in range(count):
            if kind in MOVING:
                frame, _ = letterbox(src[kind], PEN_START + PEN_STEP * i)
                mark = (4 * i, MOVING[kind], 200)
            else:
                frame, _ = letterbox(src[kind])
                mark = (200, 0, 0) if kind == "open" else (0, 200, 0)
            frame.paste(Image.new("RGB", (16, 16), mark), (0, 0))
            yield kind, i, frame


def build(fixtures, out):
    """Writes the frames as PNGs and the clip as Y4M (BT.601 limited range via ffmpeg); returns its path."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for n, (_, _, frame) in enumerate(frames(fixtures)):
        frame.save(out / f"f{n:04d}.png")
    y4m = out / "hands.y4m"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-framerate", "30", "-i", str(out / "f%04d.png"), "-pix_fmt", "yuv420p", str(y4m)], check=True)
    return y4m


def marker_kind(rgb):
    """The segment a frame's marker colour names (JPEG moves colours by a few levels)."""
    r, g, b = rgb
    if b > 150:
        return ("pen" if g > 100 else "curled"), round(r / 4)
    if g > 150:
        return "pinch", None
    if r > 150:
        return "open", None
    return None, None
