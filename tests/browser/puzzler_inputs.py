"""Inputs for the Puzzler's browser tests: every level's real input and a wrong one.

Made from the fixtures (../shared/fixtures or $SENTIO_FIXTURES), written to a temporary or cache
folder (never into the repository; the fixtures' terms do not allow redistribution). See
PUZZLER_INPUTS.md beside this file for what each input is, where it comes from and what it proves.

- Face clips (Y4M for --use-file-for-fake-video-capture): Yale face database photos (research use),
  one person per clip: ~2 s neutral (the level's calibration), then the gesture held.
- Nose clip: a Yale face moved across the frame through given target points; `NOSE_PATH` and the
  JSON `nose_path(...)` returns say where the nose tip is on every frame.
- Colour clips: cards of stated sRGB colours filling the view, a dark and a bright room.
- Fruit and hand clips: senses/ and faces/hands photos letterboxed into 640×480.
- Sound: WAVs for --use-file-for-fake-audio-capture (Chromium loops them).
- Motion: 60 Hz samples in motion_traces' format ({"gyro": rad/s, "acc": m/s²}, device frame),
  full turns constructed from a rotation with gravity rotated accordingly.
- Drawing strokes (Quick, Draw! simplified, normalised to 0…1) and SOS press lengths.

Y4M frames are written here (not by ffmpeg) in BT.601 limited range, 4:2:0 (C420jpeg: chroma
averaged over 2×2), as docs of the fake camera ask (full-range YCbCr comes out too contrasty).
"""
import gzip, json, math, os, pathlib, random, struct, wave

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

W, H = 640, 480
FPS = 15  # the fake camera's rate; a 9 s clip at 640×480 is 62 MB at 15/s
FIXTURES = pathlib.Path(os.environ.get("SENTIO_FIXTURES", "../shared/fixtures"))
CACHE = pathlib.Path(os.environ.get("SENTIO_PUZZLER_INPUTS", pathlib.Path.home() / ".cache" / "sentio" / "puzzler-inputs"))


def fixtures(root=None):
    root = pathlib.Path(root) if root else FIXTURES
    if not (root / "faces").is_dir():
        raise RuntimeError(f"missing fixtures at {root} (set SENTIO_FIXTURES)")  # never a silent skip
    return root


# ---------------------------------------------------------------- Y4M

def i420(frame):
    """RGB PIL image (W×H) → I420 bytes, BT.601 limited range (Y 16–235, Cb/Cr 16–240)."""
    rgb = np.asarray(frame.convert("RGB"), dtype=np.float64) / 255.0
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    y = 16 + 65.481 * r + 128.553 * g + 24.966 * b
    cb = 128 - 37.797 * r - 74.203 * g + 112.0 * b
    cr = 128 + 112.0 * r - 93.786 * g - 18.214 * b
    h, w = y.shape
    sub = lambda c: c.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))
    planes = [y, sub(cb), sub(cr)]
    return b"".join(np.clip(np.rint(p), 0, 255).astype(np.uint8).tobytes() for p in planes)


def write_y4m(path, frames, fps=FPS):
    """`frames`: an iterable of PIL images (W×H); a frame object repeated is converted once."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    last, data, n = None, None, 0
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{W} H{H} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for frame in frames:
            if frame is not last:
                data, last = i420(frame), frame
            f.write(b"FRAME\n")
            f.write(data)
            n += 1
    return path, n


def read_y4m_frame(path, index):
    """Frame `index` of a clip written by `write_y4m`, as RGB (for checks: classify a frame)."""
    with open(path, "rb") as f:
        header = f.readline().decode().split()
        w = int(next(t[1:] for t in header if t.startswith("W")))
        h = int(next(t[1:] for t in header if t.startswith("H")))
        size = w * h * 3 // 2
        f.seek(f.tell() + index * (6 + size) + 6)
        buf = np.frombuffer(f.read(size), dtype=np.uint8)
    y = buf[:w * h].reshape(h, w).astype(np.float64)
    cb = buf[w * h:w * h + w * h // 4].reshape(h // 2, w // 2).repeat(2, 0).repeat(2, 1).astype(np.float64)
    cr = buf[w * h + w * h // 4:].reshape(h // 2, w // 2).repeat(2, 0).repeat(2, 1).astype(np.float64)
    yy, u, v = (y - 16) * 255 / 219, (cb - 128) * 255 / 224, (cr - 128) * 255 / 224
    rgb = np.stack([yy + 1.402 * v, yy - 0.344136 * u - 0.714136 * v, yy + 1.772 * u], axis=-1)
    return Image.fromarray(np.clip(np.rint(rgb), 0, 255).astype(np.uint8))


def cover(photo, w=W, h=H):
    """The photo scaled to fill w×h and centre-cropped (ffmpeg's force_original_aspect_ratio=increase,crop)."""
    s = max(w / photo.width, h / photo.height)
    pw, ph = math.ceil(photo.width * s), math.ceil(photo.height * s)
    big = photo.convert("RGB").resize((pw, ph), Image.LANCZOS)
    x, y = (pw - w) // 2, (ph - h) // 2
    return big.crop((x, y, x + w, y + h))


def letterbox(photo, w=W, h=H, fill=(128, 128, 128)):
    """The photo scaled to fit inside w×h on grey (as hand_clip.letterbox)."""
    frame = Image.new("RGB", (w, h), fill)
    s = min(w / photo.width, h / photo.height)
    pw, ph = round(photo.width * s), round(photo.height * s)
    frame.paste(photo.convert("RGB").resize((pw, ph), Image.LANCZOS), ((w - pw) // 2, (h - ph) // 2))
    return frame


def segments(parts, fps=FPS):
    """[(frame, seconds), …] → the frames, each repeated for its seconds."""
    for frame, seconds in parts:
        for _ in range(round(seconds * fps)):
            yield frame


# ---------------------------------------------------------------- faces

# Yale face database (faces/identity/Yale_subjectNN, research use), 320×243 greyscale PNGs.
# Chosen by measuring every Yale and stock-emotions photo with `sentio faces IMAGE --json`, then
# the clips with `sentio faces --video` (values below are the clips'):
#   subject10 normal EAR 0.312/0.318 MAR 0.041 smile 0 (stills) — in the clip ~0.297 mean, so the
#   calibrated eye threshold is 0.223; sleepy EAR 0.157–0.163 (larger eye) in the clip; surprised
#   MAR 0.577 still, 0.59–0.61 in the clip (over 0.5).
#   subject02 noglasses (neutral: eyes open, mouth closed, no smile, no glasses) EAR 0.284/0.296
#   MAR 0.040 smile 0.01 in the clip; happy MAR 0.111 smile 0.67 in the clip (over neutral + 0.5
#   = 0.52, MAR under 0.24). attributes.tsv labels Yale "happy" mouth "open(teeth)": the lips part
#   a little over the teeth under his moustache, but the inner-lip MAR stays well under 0.24, so
#   by the game's rule it is a closed-mouth smile. Every Yale smile squints: his EAR falls to
#   0.218/0.229 — not closed against the calibrated threshold (0.217), closed against the
#   uncalibrated 0.24. No fixture photo labelled as a closed-mouth smile reaches the smile score
#   (stock-emotions a-7 "smirk": 0.14), and no one person has all four expressions passing the
#   rules (subject10's happy has MAR 0.242; subject05's happy MAR 0.227 in a clip, too near 0.24).
YALE = "faces/identity/Yale_subject{n:02d}/yale_subject{n:02d}_{expr}.png"
CALIBRATION_S = 2.0
GESTURE_S = 8.0


def yale(expr, n=10, root=None):
    return Image.open(fixtures(root) / YALE.format(n=n, expr=expr))


def yale_frame(expr, n=10, root=None):
    return cover(yale(expr, n, root))


def two_faces(expr_a, expr_b, a=10, b=2, root=None):
    """Two people side by side, each photo covering half the frame's width (320×480 → letterboxed)."""
    frame = Image.new("RGB", (W, H), (128, 128, 128))
    for i, (n, e) in enumerate(((a, expr_a), (b, expr_b))):
        frame.paste(letterbox(yale(e, n, root), W // 2, H), (i * W // 2, 0))
    return frame


def degraded(frame, gain=0.03, blur=10):
    """A dark, blurred view of `frame`: every channel × `gain`, Gaussian blur of `blur` px. The face
    detector is robust in the dark: on subject10 sleepy it still found the face at gain 0.04 and
    blur 8 (mean L* 1.9, EAR 0.205/0.215); at 0.03 and 10 (mean L* 1.3) it finds none."""
    dark = Image.eval(frame, lambda v: int(v * gain))
    return dark.filter(ImageFilter.GaussianBlur(blur))


# After calibration: (expression, frames at FPS). Openings of 1 and 2 frames are flickers the
# eyes rule tolerates; 3 frames end the run.
FLICKER = [("sleepy", 20), ("normal", 2), ("sleepy", 20), ("normal", 1), ("sleepy", 10), ("normal", 3),
           ("sleepy", 14), ("normal", 1), ("sleepy", 30), ("normal", 2), ("sleepy", 17)]


def face_clips(root=None, fps=FPS):
    """name → (list of (frame, seconds), what it is for). All one person per clip. `fps`: the
    clip's rate (the flicker clip counts frames)."""
    n10 = lambda e: yale_frame(e, 10, root)
    n02 = lambda e: yale_frame(e, 2, root)
    c, g = CALIBRATION_S, GESTURE_S
    return {
        "face-eyes-closed": ([(n10("normal"), c), (n10("sleepy"), g)], "eyes level: eyes closed held"),
        "face-mouth-open": ([(n10("normal"), c), (n10("surprised"), g)], "mouth level: mouth open held"),
        "face-smile": ([(n02("noglasses"), c), (n02("happy"), g)], "smile level: closed-mouth smile held"),
        "face-neutral": ([(n10("normal"), c + g)], "wrong for every face level: eyes open, mouth closed, no smile"),
        "face-eyes-short": ([(n10("normal"), c), (n10("sleepy"), 3.0), (n10("normal"), g - 3.0)],
                            "wrong for eyes: closed for 3 s only, then open"),
        "face-eyes-flicker": ([(n10("normal"), c)] + [(n10(e), k / fps) for e, k in FLICKER],
                              "eyes level, the tolerance path: closed with 1- and 2-frame openings (kept) and 3-frame ones (break)"),
        "face-two-eyes-closed": ([(two_faces("normal", "noglasses", root=root), c), (two_faces("sleepy", "sleepy", root=root), g)],
                                 "wrong for eyes: two people close their eyes (the level needs exactly one face)"),
        "face-dark-eyes-closed": ([(degraded(n10("normal")), c), (degraded(n10("sleepy")), g)],
                                  "wrong for eyes: the eyes-closed clip dark and blurred (too dark to see)"),
    }


# Nose cursor. The level does not put the cursor where the nose is: it centres the cursor on the
# neutral nose (the mean nose of its 10 calibration frames) and moves it 2.5× as far as the nose
# moves, mirrored like the selfie view (FaceJudge, docs/puzzler.md):
#   cursor.x = 0.5 − 2.5·(nose.x − neutral.x),  cursor.y = 0.5 + 2.5·(nose.y − neutral.y)
# (nose in camera-image coordinates 0…1, unmirrored). The clip: the face photo (subject10 normal,
# 320×243 at scale 1) on grey with its nose tip at rest in the frame's centre for NOSE_REST_S (the
# calibration), then moved so that the cursor rests NOSE_DWELL_S on each of the level's targets in
# order, NOSE_MOVE_S between them, and back to rest at the end (Chromium loops the clip).
NOSE_CURSOR_TARGETS = [(0.25, 0.3), (0.75, 0.3), (0.75, 0.7), (0.25, 0.7)]  # FaceJudge.targets, radius 0.09
NOSE_GAIN = 2.5
NOSE_REST = (0.5, 0.5)  # the nose tip at rest, camera image 0…1
NOSE_REST_S = 2.0
NOSE_DWELL_S = 1.0
NOSE_MOVE_S = 0.7
NOSE_SCALE = 1.0


def nose_for_cursor(cx, cy, rest=NOSE_REST):
    """Where the nose must be (camera image 0…1) for the cursor to be at (cx, cy)."""
    return rest[0] + (0.5 - cx) / NOSE_GAIN, rest[1] + (cy - 0.5) / NOSE_GAIN


def cursor_for_nose(nx, ny, neutral=NOSE_REST):
    return 0.5 - NOSE_GAIN * (nx - neutral[0]), 0.5 + NOSE_GAIN * (ny - neutral[1])


def nose_offset(root=None, measured=None):
    """Where the nose tip lies in the scaled photo, in pixels from its top-left. `measured`: the
    normalized nose tip of the photo by `sentio faces` (landmark 1); default the value measured on
    yale_subject10_normal.png (landmark 1: 0.5311, 0.6130)."""
    nx, ny = measured or NOSE_TIP_SUBJECT10
    photo = yale("normal", 10, root)
    return nx * photo.width * NOSE_SCALE, ny * photo.height * NOSE_SCALE


NOSE_TIP_SUBJECT10 = (0.5311, 0.6130)  # `sentio faces yale_subject10_normal.png --json`, landmark 1


def nose_path(fps=FPS, root=None):
    """Per frame: the nose tip planned (camera image, 0…1), the mirrored view's nose, and the cursor
    the level computes from it (neutral = the rest position); the targets and the frames where the
    cursor dwells on each."""
    stops = [NOSE_REST] + [nose_for_cursor(*t) for t in NOSE_CURSOR_TARGETS] + [NOSE_REST]
    holds = [round(NOSE_REST_S * fps)] + [round(NOSE_DWELL_S * fps)] * len(NOSE_CURSOR_TARGETS) + [round(NOSE_REST_S * fps)]
    move = round(NOSE_MOVE_S * fps)
    frames, dwells = [], []
    for i, (p, k) in enumerate(zip(stops, holds)):
        if 0 < i <= len(NOSE_CURSOR_TARGETS):
            dwells.append([len(frames), len(frames) + k - 1])
        frames.extend([p] * k)
        if i + 1 < len(stops):
            q = stops[i + 1]
            for j in range(1, move + 1):
                t = j / move
                frames.append((p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t))
    return {"fps": fps, "gain": NOSE_GAIN, "rest_image": list(NOSE_REST), "targets_cursor": [list(t) for t in NOSE_CURSOR_TARGETS],
            "radius": 0.09, "dwell_frames": dwells, "move_frames": move,
            "nose_image": [[round(x, 4), round(y, 4)] for x, y in frames],
            "nose_view": [[round(1 - x, 4), round(y, 4)] for x, y in frames],
            "cursor": [[round(c, 4) for c in cursor_for_nose(x, y)] for x, y in frames]}


def nose_frames(fps=FPS, root=None):
    photo = yale("normal", 10, root).convert("RGB")
    if NOSE_SCALE != 1.0:
        photo = photo.resize((round(photo.width * NOSE_SCALE), round(photo.height * NOSE_SCALE)), Image.LANCZOS)
    ox, oy = nose_offset(root)
    cache = {}
    for x, y in nose_path(fps, root)["nose_image"]:
        key = (round(x * W - ox), round(y * H - oy))
        if key not in cache:
            frame = Image.new("RGB", (W, H), (128, 128, 128))
            frame.paste(photo, key)
            cache[key] = frame
        yield cache[key]


# ---------------------------------------------------------------- colours, light

# Cards filling the view, sRGB stated (CSS named colours where one fits): each frame the colour
# plus zero-mean Gaussian sensor noise (σ 2 levels, seeded), so the mean stays the stated value.
CARDS = {"red": "#D62828", "green": "#2A9D3F", "blue": "#1F5FBF", "yellow": "#F2C318"}
WRONG_CARD = {"grey": "#808080"}
CARD_S = 6.0


def srgb_to_lab(rgb):
    """sRGB 0…255 (array …×3) → CIE L*a*b* (D65)."""
    a = np.asarray(rgb, dtype=np.float64) / 255
    lin = np.where(a <= 0.04045, a / 12.92, ((a + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]])
    xyz = lin @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def mean_lightness(frame):
    return float(srgb_to_lab(np.asarray(frame.convert("RGB")))[..., 0].mean())


def hex_rgb(h):
    h = h.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))


def card(hex_colour, seed=0, noise=2.0):
    rng = np.random.default_rng(seed)
    base = np.array(hex_rgb(hex_colour), dtype=np.float64)
    px = base + rng.normal(0, noise, (H, W, 3))
    return Image.fromarray(np.clip(np.rint(px), 0, 255).astype(np.uint8))


def colour_parts(hexes, seconds=CARD_S):
    """A clip for any list of swatches (the test may build one from the level's own swatches)."""
    return [(card(h, seed=i), seconds) for i, h in enumerate(hexes)]


DARK_PHOTO = "senses/negatives/skimage__coffee.png"  # scikit-image coffee, CC0


def scaled_light(frame, factor):
    """`frame` with its linear-light intensity × `factor` (a room's light dimmed or raised)."""
    a = np.asarray(frame.convert("RGB"), dtype=np.float64) / 255
    lin = np.where(a <= 0.04045, a / 12.92, ((a + 0.055) / 1.055) ** 2.4) * factor
    lin = np.clip(lin, 0, 1)
    out = np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)
    return Image.fromarray(np.rint(out * 255).astype(np.uint8))


DARK_FACTOR = 0.05    # coffee photo (640×480 crop): mean L* 43.7 → 7.8
BRIGHT_FACTOR = 2.5   # → mean L* 60.5 (highlights clip)


def light_parts(root=None, fps=FPS):
    """The dark clip: the room lit 2 s, dimming over 2 s (linear light), then dark 6 s; the bright
    clip: the same room with its light raised, 10 s. Returns name → parts."""
    room = cover(Image.open(fixtures(root) / DARK_PHOTO))
    steps = round(2 * fps)
    fade = [(scaled_light(room, 1 + (DARK_FACTOR - 1) * (k + 1) / steps), 1 / fps) for k in range(steps)]
    return {"light-dark": [(room, 2.0)] + fade + [(scaled_light(room, DARK_FACTOR), 6.0)],
            "light-bright": [(scaled_light(room, BRIGHT_FACTOR), 10.0)]}


# ---------------------------------------------------------------- fruit, hands

# GroceryStoreDataset (MIT) photos, chosen by `sentio classify FRAME --find …` on the 640×480
# frames (see PUZZLER_INPUTS.md for every candidate's score).
BANANA = ("senses/banana/gs__test_Fruit_Banana_Banana_037.jpg", "letterbox")
ORANGE = ("senses/orange/gs__train_Fruit_Orange_Orange_055.jpg", "cover")
APPLE = ("senses/apple/gs__test_Fruit_Apple_Granny-Smith_Granny-Smith_009.jpg", "cover")
FRUIT_S = 6.0


def photo_frame(spec, root=None):
    path, mode = spec
    photo = Image.open(fixtures(root) / path)
    return cover(photo) if mode == "cover" else letterbox(photo)


# faces/hands.tsv: MediaPipe gesture sample images (mediapipe-samples) and goldens.
HANDS = {"victory": ("faces/hands/mprs_victory.jpg", "letterbox"),
         "thumbsUp": ("faces/golden_mediapipe/ms_android_hand_thumb_up.jpg", "letterbox"),
         # mprs_thumbs_down.jpg (427×640) is not a usable wrong shape: letterboxed no hand is
         # found, cropped to fill the frame it reads as a fist.
         "pointing": ("faces/hands/mprs_pointing_up.jpg", "letterbox")}
HAND_S = 6.0


def object_clips(root=None):
    return {
        "fruit-banana-orange": ([(photo_frame(BANANA, root), FRUIT_S), (photo_frame(ORANGE, root), FRUIT_S)],
                                "fruit level: a banana, then an orange"),
        "fruit-apple": ([(photo_frame(APPLE, root), 2 * FRUIT_S)], "wrong for fruit: a Granny Smith apple only"),
        "hand-victory": ([(photo_frame(HANDS["victory"], root), HAND_S)], "hand level (victory)"),
        "hand-thumbs-up": ([(photo_frame(HANDS["thumbsUp"], root), HAND_S)], "hand level (thumbs up)"),
        "hand-pointing": ([(photo_frame(HANDS["pointing"], root), HAND_S)], "wrong for victory / thumbs up: pointing up"),
    }


# The colours level's own swatches (ColourMatchJudge.references: sRGB 0…1, in order), each shown
# LEVEL_CARD_S: the level needs each 3 s in its centre cut-out within ΔE2000 12.
LEVEL_SWATCHES = [("red", (0.80, 0.12, 0.14)), ("yellow", (0.96, 0.78, 0.10)), ("blue", (0.10, 0.36, 0.78))]
LEVEL_CARD_S = 4.5


def srgb_hex(rgb):
    return "#" + "".join(f"{round(v * 255):02X}" for v in rgb)


def colour_clips(root=None):
    out = {"colour-level": (colour_parts([srgb_hex(c) for _, c in LEVEL_SWATCHES], LEVEL_CARD_S),
                            "colours level: its own " + ", ".join(f"{n} {srgb_hex(c)}" for n, c in LEVEL_SWATCHES) + f", {LEVEL_CARD_S:g} s each"),
           "colour-cards": (colour_parts(list(CARDS.values())), "colours level: " + ", ".join(f"{k} {v}" for k, v in CARDS.items()) + f", {CARD_S:g} s each"),
           "colour-grey": (colour_parts(list(WRONG_CARD.values()), 2 * CARD_S), "wrong for colours: a grey card #808080")}
    for name, parts in light_parts(root).items():
        out[name] = (parts, "dark level: lit, dimmed, dark" if name == "light-dark" else "wrong for dark: a brightly lit room")
    return out


# ---------------------------------------------------------------- sound

def write_wav(path, samples, rate):
    """Mono float samples (−1…1) → 16-bit PCM WAV."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pcm = np.clip(np.rint(np.asarray(samples) * 32767), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return path


def read_wav(path):
    with wave.open(str(path), "rb") as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1, path
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768, w.getframerate()


def dbfs(x):
    return 20 * math.log10(max(1e-6, float(np.sqrt(np.mean(np.square(x))))))


def noise(seconds, rms_dbfs, rate=48000, seed=0, lowpass_hz=None):
    """Seeded Gaussian noise at an RMS of `rms_dbfs`; `lowpass_hz`: a one-pole low-pass first
    (breath into a microphone is mostly low-frequency noise). 20 ms fades so the loop does not click."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1, int(seconds * rate))
    if lowpass_hz:
        a = math.exp(-2 * math.pi * lowpass_hz / rate)
        y = np.empty_like(x)
        acc = 0.0
        for i, v in enumerate(x):  # a few seconds: fine in Python
            acc = a * acc + (1 - a) * v
            y[i] = acc
        x = y
    x *= 10 ** (rms_dbfs / 20) / np.sqrt(np.mean(x * x))
    fade = int(0.02 * rate)
    ramp = np.linspace(0, 1, fade)
    x[:fade] *= ramp
    x[-fade:] *= ramp[::-1]
    return x


SPEECH = "senses/speech/{}"
BLACK_HOLE = "festival_kal_diphone_black_hole.wav"            # synthesized (festival kal_diphone), see the manifest
BLACK_HOLE_SLT = "festival_cmu_us_slt_arctic_hts_black_hole.wav"
OTHER_WORD = "sc__house_6272b231_nohash_1.wav"                # Speech Commands v0.01 (CC BY 4.0), a real speaker
PAD_BEFORE_S, PAD_AFTER_S = 1.0, 2.0
FLOOR_DBFS = -70.0


def padded_speech(name, root=None):
    """A fixture clip unchanged, with a quiet room's floor (−70 dBFS noise) before and after."""
    x, rate = read_wav(fixtures(root) / SPEECH.format(name))
    before = noise(PAD_BEFORE_S, FLOOR_DBFS, rate, seed=1)
    after = noise(PAD_AFTER_S, FLOOR_DBFS, rate, seed=2)
    return np.concatenate([before, x, after]), rate


def sounds(root=None):
    """name → (samples, rate, what for)."""
    bh, r1 = padded_speech(BLACK_HOLE, root)
    slt, r2 = padded_speech(BLACK_HOLE_SLT, root)
    other, r3 = padded_speech(OTHER_WORD, root)
    return {
        "sound-loud": (noise(4.0, -14.0, 48000, seed=3, lowpass_hz=800), 48000,
                       "loud level: breath-like noise (seeded, low-passed at 800 Hz), −14 dBFS RMS (no sample clips), 4 s"),
        "sound-quiet": (noise(4.0, -65.0, 48000, seed=4), 48000, "wrong for loud: a quiet room, −65 dBFS RMS white noise, 4 s"),
        "speech-black-hole": (bh, r1, "keyword level: 'black hole' (festival kal_diphone) with 1 s before and 2 s after"),
        "speech-black-hole-slt": (slt, r2, "keyword level: 'black hole' (festival cmu_us_slt_arctic_hts), padded the same"),
        "speech-house": (other, r3, "wrong for keyword: 'house' (Speech Commands, a real speaker), padded the same"),
    }


# ---------------------------------------------------------------- motion

G = 9.80665
MOTION_HZ = 60
AXES = {"pitch": (1.0, 0.0, 0.0), "roll": (0.0, 1.0, 0.0), "yaw": (0.0, 0.0, 1.0)}  # device x, y, z (Core Motion's names)


def _qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def _rotate_into_device(q, v):
    """World vector v in the device frame: conj(q)·v·q (q: device → world)."""
    w, x, y, z = q
    r = _qmul(_qmul((w, -x, -y, -z), (0.0, *v)), q)
    return r[1:]


def turn(axis, degrees, seconds, hz=MOTION_HZ):
    """A turn about a device axis with a raised-cosine rate (0 → peak → 0): [(dθ/dt rad/s, θ rad)]."""
    total = math.radians(degrees)
    peak = 2 * total / seconds
    out = []
    for i in range(round(seconds * hz)):
        t = (i + 0.5) / hz
        rate = peak * (1 - math.cos(2 * math.pi * t / seconds)) / 2
        angle = peak * (t / 2 - seconds / (4 * math.pi) * math.sin(2 * math.pi * t / seconds))
        out.append((axis, rate, angle))
    return out


def motion(plan, hz=MOTION_HZ):
    """`plan`: [("rest", seconds) | (axis, degrees, seconds)], the phone starting face up on a table
    (accelerometer reads +g on z, as Chromium's accelerationIncludingGravity does). Each turn is about
    the device's own axis from where the last one left it. Returns samples
    {"t" ms, "gyro" [rad/s x,y,z], "acc" [m/s² x,y,z], "quat" [x,y,z,w] (device → world, for the
    relative-orientation sensor)}: the gyroscope the body rate, the accelerometer gravity rotated
    into the device frame — consistent, so a fusion filter follows the turn exactly."""
    q = (1.0, 0.0, 0.0, 0.0)
    samples, n = [], 0
    for step in plan:
        if step[0] == "rest":
            seg = [(None, 0.0, 0.0)] * round(step[1] * hz)
        else:
            seg = turn(step[0], step[1], step[2], hz)
        base = q
        for axis, rate, angle in seg:
            gyro = [0.0, 0.0, 0.0]
            if axis:
                ax = AXES[axis]
                gyro = [rate * c for c in ax]
                h = angle / 2
                q = _qmul(base, (math.cos(h), *(math.sin(h) * c for c in ax)))
            acc = list(_rotate_into_device(q, (0.0, 0.0, G)))
            samples.append({"t": round(n * 1000 / hz, 3), "gyro": gyro, "acc": acc, "quat": [q[1], q[2], q[3], q[0]]})
            n += 1
    return samples


# Full turns at a raised-cosine rate, 1 s of rest around each. Roll and yaw go 380° and come back
# 20° (a player overshoots): exactly 360° ended at 359.4° in `sentio motion fuse` (6D), under the
# tracker's 2π, and only completed later from the fusion's wobble. Pitch turns 360° about x (top
# edge down first), through all four quarters of Core Motion's pitch (−90…−45, −45…0, 0…45,
# 45…90°), the tracker's rule. Top edge up first (+360°) the same turn also completes roll and yaw
# in `sentio motion gestures` (their Euler angles jump by 180° twice as pitch passes ±90°):
# PITCH_UP_ONLY is that input, for a test of the trackers' independence.
FULL_TURNS = [("rest", 1.0), ("roll", 380, 4.0), ("roll", -20, 0.5), ("rest", 1.0),
              ("yaw", 380, 4.0), ("yaw", -20, 0.5), ("rest", 1.0), ("pitch", -360, 4.0), ("rest", 1.0)]
PITCH_UP_ONLY = [("rest", 1.0), ("pitch", 360, 4.0), ("rest", 1.0)]
# The wrong input: three quarters about yaw and roll (each turned back to face up, since a turn
# about the device's z while it stands on its edge would be a pitch), and a pitch up to 80° and
# back (two quarters: a three-quarter turn about x would pass −45° and count by the pitch rule).
THREE_QUARTER_TURNS = [("rest", 1.0), ("yaw", 270, 3.0), ("rest", 1.0), ("roll", 270, 3.0), ("roll", -270, 3.0), ("rest", 1.0),
                       ("pitch", 80, 1.5), ("pitch", -80, 1.5), ("rest", 1.0)]


def page_samples(samples):
    """As a page would send them: Chromium's devicemotion (°/s, x → alpha, y → beta, z → gamma;
    every value rounded to 0.1), in the shape motion_traces.write_trace reads."""
    d = 180 / math.pi
    r1 = lambda v: round(v * 10) / 10
    return [{"t": s["t"], "accelerationIncludingGravity": dict(zip("xyz", map(r1, s["acc"]))),
             "rotationRate": {"alpha": r1(s["gyro"][0] * d), "beta": r1(s["gyro"][1] * d), "gamma": r1(s["gyro"][2] * d)}}
            for s in samples]


# ---------------------------------------------------------------- drawings

QUICKDRAW = "senses/quickdraw/{}__strokes_simplified_lam.ndjson"  # Google Quick, Draw! (CC BY 4.0), simplified


def quickdraw(word, count, root=None, recognized_only=True):
    """The first `count` drawings of a class (recognized=true only by default), each
    {"key_id", "strokes"}: strokes [[[x, y], …], …] normalised to 0…1 — the drawing's box scaled to
    0.8 of the canvas on its longer side and centred, as if drawn on a square canvas."""
    out = []
    with open(fixtures(root) / QUICKDRAW.format(word.replace(" ", "_"))) as f:
        for line in f:
            d = json.loads(line)
            if recognized_only and not d["recognized"]:
                continue
            out.append({"word": d["word"], "key_id": d["key_id"], "strokes": normalise(d["drawing"])})
            if len(out) == count:
                break
    return out


def normalise(drawing, margin=0.1):
    xs = [x for s in drawing for x in s[0]]
    ys = [y for s in drawing for y in s[1]]
    x0, y0 = min(xs), min(ys)
    span = max(max(xs) - x0, max(ys) - y0, 1)
    k = (1 - 2 * margin) / span
    ox = margin + (1 - 2 * margin - (max(xs) - x0) * k) / 2
    oy = margin + (1 - 2 * margin - (max(ys) - y0) * k) / 2
    return [[[round(ox + (x - x0) * k, 4), round(oy + (y - y0) * k, 4)] for x, y in zip(s[0], s[1])] for s in drawing]


def zigzag():
    """A wrong drawing that is no object: one zigzag stroke across the canvas."""
    return {"word": "zigzag", "key_id": None, "strokes": [[[0.1 + 0.1 * i, 0.3 if i % 2 else 0.7] for i in range(9)]]}


def drawings(root=None):
    return {"apple": quickdraw("apple", 3, root), "circle": quickdraw("circle", 3, root),
            "wrong": quickdraw("light bulb", 2, root) + [zigzag()],
            "hard_negatives": quickdraw("pear", 2, root) + quickdraw("blueberry", 2, root)}


# ---------------------------------------------------------------- SOS

# Press lengths in ms (a dot ~150, a dash ~480, as a thumb does) with the pause before each press
# (200 inside a letter, 700 between letters), for {"type": "press", "ms": …} messages.
DOT, DASH = [150, 170, 140], [480, 520, 450]


def presses(pattern):
    """'... --- ...' → [{"ms", "gapBeforeMs"}]."""
    out, d, s, first = [], 0, 0, True
    for letter in pattern.split():
        for i, c in enumerate(letter):
            ms = DOT[d % 3] if c == "." else DASH[s % 3]
            d, s = d + (c == "."), s + (c == "-")
            out.append({"ms": ms, "gapBeforeMs": 0 if first else (200 if i else 700)})
            first = False
    return out


def sos_inputs():
    return {"sos": presses("... --- ..."), "wrong_oso": presses("--- ... ---"), "wrong_short": presses("... -- ..."),
            "wrong_all_dots": presses("... ... ...")}


# ---------------------------------------------------------------- everything

def clips(root=None, fps=FPS):
    """Every camera clip: name → (parts, what for)."""
    out = dict(face_clips(root, fps))
    out.update(colour_clips(root))
    out.update(object_clips(root))
    return out


def write_all(out, root=None, fps=FPS, only=None):
    """Writes every input under `out`; returns the index (also written as index.json)."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    index = {"fps": fps, "clips": {}, "sounds": {}, "motion": {}, "json": {}}
    old = out / "index.json"
    if only and old.exists():  # a partial run keeps the other entries
        index = json.loads(old.read_text())
        if index.get("fps") != fps:
            raise ValueError(f"{out} holds clips at {index.get('fps')} fps; write them all again at {fps}")
    want = lambda name: not only or any(o in name for o in only)
    for name, (parts, why) in clips(root, fps).items():
        if want(name):
            path, n = write_y4m(out / f"{name}.y4m", segments(parts, fps), fps)
            index["clips"][name] = {"file": path.name, "frames": n, "seconds": round(n / fps, 2), "for": why}
    if want("face-nose"):
        path, n = write_y4m(out / "face-nose.y4m", nose_frames(fps, root), fps)
        index["clips"]["face-nose"] = {"file": path.name, "frames": n, "seconds": round(n / fps, 2), "path": "nose-path.json",
                                       "for": "nose level: the cursor (2.5× the nose's movement from rest) through the level's four targets, nose-path.json"}
        (out / "nose-path.json").write_text(json.dumps(nose_path(fps, root)))
    for name, (x, rate, why) in sounds(root).items():
        if want(name):
            write_wav(out / f"{name}.wav", x, rate)
            index["sounds"][name] = {"file": f"{name}.wav", "rate": rate, "seconds": round(len(x) / rate, 3), "dbfs": round(dbfs(x), 1), "for": why}
    for name, plan in (("motion-full-turns", FULL_TURNS), ("motion-three-quarter-turns", THREE_QUARTER_TURNS), ("motion-pitch-up-only", PITCH_UP_ONLY)):
        if want(name):
            s = motion(plan)
            (out / f"{name}.json").write_text(json.dumps({"hz": MOTION_HZ, "plan": plan, "samples": s}))
            index["motion"][name] = {"file": f"{name}.json", "samples": len(s), "plan": plan}
    if want("drawings"):
        (out / "drawings.json").write_text(json.dumps(drawings(root)))
        index["json"]["drawings"] = "drawings.json"
    if want("sos"):
        (out / "sos.json").write_text(json.dumps(sos_inputs()))
        index["json"]["sos"] = "sos.json"
    (out / "index.json").write_text(json.dumps(index, indent=1))
    return index


# ---------------------------------------------------------------- checks with the real tools

def _run(args):
    import subprocess
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"{' '.join(map(str, args))}: {r.stderr.strip()[:300]}")
    return r.stdout


def _middle_frames(parts, fps):
    idx, mids = 0, []
    for _, seconds in parts:
        k = round(seconds * fps)
        mids.append(idx + k // 2)
        idx += k
    return mids


def verify(out, binary=None, root=None, only=None):
    """Runs Sentio's own tools on the written inputs; yields (name, figures) — what each clip or
    file measures (faces: face_rules' summary of `sentio faces --video`; fruit: `sentio classify
    --find`; hands: `sentio hands`; sounds: `sentio listen`; motion: `sentio motion gestures`)."""
    import tempfile
    import face_rules
    import motion_traces
    binary = binary or os.environ.get("SENTIO_BIN", ".build/release/sentio")
    out = pathlib.Path(out)
    index = json.loads((out / "index.json").read_text())
    fps = index["fps"]
    want = lambda name: not only or any(o in name for o in only)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="puzzler-verify-"))
    all_clips = clips(root, fps)
    for name, info in index["clips"].items():
        if not want(name):
            continue
        clip = out / info["file"]
        if name.startswith("face-"):
            frames = face_rules.read_frames(_run([binary, "faces", "--video", str(clip), "--json", "--threads", "1"]).splitlines())
            s = face_rules.summary(frames, CALIBRATION_S)
            fig = {"faces": s["facesCounts"], "agreement": s["agreement"], "uncalibrated": {k: v for k, v in s["uncalibrated"].items() if k.endswith("Max")}}
            if s["calibrated"]:
                fig["calibrated"] = {k: v for k, v in s["calibrated"].items() if k.endswith("Max")}
                fig["calibration"] = {k: round(v, 3) for k, v in s["calibrated"]["calibration"].items()}
            if name == "face-nose":
                path = json.loads((out / "nose-path.json").read_text())["nose_image"]
                err = [math.hypot((f["faces"][0]["landmarks"][1][0] - p[0]) * W, (f["faces"][0]["landmarks"][1][1] - p[1]) * H)
                       for f, p in zip(frames, path) if f["faces"]]
                fig["noseErrorPx"] = {"median": round(float(np.median(err)), 2), "max": round(max(err), 2), "frames": len(err)}
            if name == "face-two-eyes-closed":
                still = tmp / "two.png"
                read_y4m_frame(clip, index["clips"][name]["frames"] - 1).save(still)
                fig["stillFaces"] = len(json.loads(_run([binary, "faces", str(still), "--json", "--threads", "1"]))["faces"])
            yield name, fig
        elif name.startswith("fruit-") or name.startswith("hand-") or name.startswith("colour-") or name.startswith("light-"):
            figs = []
            mids = _middle_frames(all_clips[name][0], fps)
            if name == "light-dark":  # lit, the last frame of the dimming, dark
                mids = [mids[0], mids[-2], mids[-1]]
            for m in mids:
                frame = read_y4m_frame(clip, m)
                png = tmp / f"{name}-{m}.png"
                frame.save(png)
                f = {"frame": m, "L*": round(mean_lightness(frame), 1)}
                if name.startswith("fruit-"):
                    for label in ("banana", "orange"):
                        r = json.loads(_run([binary, "classify", str(png), "--find", label, "--json", "--threads", "1"]))["find"]
                        f[label] = [round(r["score"], 3), r["found"]]
                elif name.startswith("hand-"):
                    f["hands"] = [h.get("gesture") for h in json.loads(_run([binary, "hands", str(png), "--json", "--threads", "1"]))["hands"]]
                elif name.startswith("colour-"):
                    f["meanRGB"] = [round(v, 1) for v in np.asarray(frame, dtype=np.float64).reshape(-1, 3).mean(0)]
                figs.append(f)
            yield name, figs
    for name, info in index["sounds"].items():
        if want(name):
            r = json.loads(_run([binary, "listen", str(out / info["file"]), "--json"]))
            loud = r["loudness_dbfs"]
            yield name, {"dbfsMedian": round(float(np.median(loud)), 1), "dbfsMax": round(max(loud), 1),
                         "hits": r["hits"], "clipped": r["clipped_samples"]}
    for name, info in index["motion"].items():
        if want(name):
            samples = json.loads((out / info["file"]).read_text())["samples"]
            csv = tmp / f"{name}.csv"
            motion_traces.write_trace(page_samples(samples), csv)
            events = [json.loads(l) for l in _run([binary, "motion", "gestures", str(csv), "--json"]).splitlines() if l.strip()]
            yield name, [(e["gesture"], e.get("axis"), round(e["t"], 2)) for e in events]


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description="Write the Puzzler's test inputs (and check them with Sentio's tools).")
    ap.add_argument("out", nargs="?", default=str(CACHE), help=f"folder (default {CACHE})")
    ap.add_argument("--fixtures", default=None, help="fixtures folder (default $SENTIO_FIXTURES or ../shared/fixtures)")
    ap.add_argument("--fps", type=int, default=FPS)
    ap.add_argument("--only", action="append", help="only inputs whose name contains this (repeatable)")
    ap.add_argument("--check", action="store_true", help="run sentio (faces, classify, hands, listen, motion) on them")
    ap.add_argument("--no-write", action="store_true", help="check what is already there")
    a = ap.parse_args(argv)
    if not a.no_write:
        index = write_all(a.out, a.fixtures, a.fps, a.only)
        n = len(index["clips"]) + len(index["sounds"]) + len(index["motion"]) + len(index["json"])
        print(f"wrote {n} inputs to {a.out} (index.json)")
    if a.check:
        for name, fig in verify(a.out, root=a.fixtures, only=a.only):
            print(name, json.dumps(fig))


if __name__ == "__main__":
    main()
