"""The gestures page's fake-camera clip, built from fixture hand photos (faces/hands.tsv):

- open hand: hands/handtrackjs_3.jpg (open palm; thumb–index 1.49, index–middle 0.84 of the hand's size);
- pinch: hands/mp_gesture_call_17d804b5-….jpg cropped to its lower right (x 211–384, y 150–512), the hand resting on the table, whose thumb
  and index tips nearly touch (0.10 of the hand's size: a pinch by the lessons' rule; the fixtures
  have no photo taken as a pinch);
- pen: golden_mediapipe/ms_android_hand_thumb_up.jpg, whose index and middle fingertips touch
  (0.21, fingers curled; the fixtures have no photo of two extended fingers held together), moved
  across the frame 8 px per frame so the pen writes a line.

Each frame is the photo letterboxed into 640×480 on grey, with its segment marked in the top-left
16×16 pixels (red: open, green: pinch, blue: pen, its red channel 4 × the pen frame's index), so
the page's replies can be matched to what the camera showed. Segments (frames at 30/s): open 45,
pinch 75, open 30, pen 60, open 30.
"""
import pathlib, subprocess

from PIL import Image

SEGMENTS = [("open", 45), ("pinch", 75), ("open", 30), ("pen", 60), ("open", 30)]
PEN_STEP = 8  # pixels per frame
PEN_START = -236


def sources(fixtures):
    hands = pathlib.Path(fixtures) / "faces"
    pinch = Image.open(hands / "hands" / "mp_gesture_call_17d804b5-7118-462d-8191-58d764f591b8.jpg").convert("RGB")
    return {
        "open": Image.open(hands / "hands" / "handtrackjs_3.jpg").convert("RGB"),
        "pinch": pinch.crop((211, 150, 384, 512)),
        "pen": Image.open(hands / "golden_mediapipe" / "ms_android_hand_thumb_up.jpg").convert("RGB"),
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
            if kind == "pen":
                frame, _ = letterbox(src["pen"], PEN_START + PEN_STEP * i)
                mark = (4 * i, 0, 200)
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
        return "pen", round(r / 4)
    if g > 150:
        return "pinch", None
    if r > 150:
        return "open", None
    return None, None
