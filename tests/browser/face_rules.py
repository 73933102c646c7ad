"""An independent reference of the Puzzler's face rules, frame by frame, in Python.

Source of the rules: the original game's rules as Sentio states them in
Sources/SentioVision/Faces/FaceGestures.swift (`FaceGestureDetector`, its doc comments and
defaults) and README.md (`sentio faces --video`). Written from that description, not translated
line by line, so that a test can compare the server's verdicts with a second reading:

- Only a frame with exactly one face counts; with none or several every state resets.
- Eyes closed: both eyes' EAR under the threshold (i.e. the larger of the two under it) for at
  least 15 frames in a run; inside a run, up to 2 consecutive frames above the threshold are a
  flicker that does not break it (and they count as frames of the run); a third ends it.
  Threshold: 0.24, or with calibration 75 % of the neutral EAR (the mean of (left+right)/2 over
  the calibration frames).
- Mouth open: MAR over 0.5.
- Closed-mouth smile: MAR under 0.24 and the smile score over the smile threshold: 0.5, or with
  calibration the neutral smile score (its mean over the calibration frames) + 0.5, at most 1.

Input: the JSON lines of `sentio faces --video CLIP.y4m --json` (one object per frame: `frame`,
`time`, `faces` [{`signals`: {leftEAR, rightEAR, MAR, smile, eyesClosed, mouthOpen, smiling…}}]).
Output per frame: the faces count, the three booleans and the seconds each has been held (the
time since the first frame of the current run of true, plus one frame period; 0 when false).

Two variants: `uncalibrated` (the defaults from frame 0; its booleans must equal the CLI's own,
which come from the same rules in Swift — `agreement` counts it) and `calibrated` (neutral values
measured on the frames before `calibration_s` that show exactly one face; rules applied from the
first frame after them, with fresh state).

    python3 tests/browser/face_rules.py CLIP.jsonl [--calibration-s 2] [--frames]
    python3 tests/browser/face_rules.py --video CLIP.y4m   (runs $SENTIO_BIN faces --video)
"""
import argparse, json, os, subprocess, sys

EAR_THRESHOLD = 0.24
CLOSED_FRAMES = 15
TOLERANCE = 2
OPEN_THRESHOLD = 0.5
CLOSED_MOUTH_THRESHOLD = 0.24
SMILE_THRESHOLD = 0.5
CALIBRATED_EAR_FACTOR = 0.75


def read_frames(lines):
    frames = []
    for line in lines:
        line = line.strip()
        if line:
            frames.append(json.loads(line))
    return frames


def run_sentio(video, binary=None):
    binary = binary or os.environ.get("SENTIO_BIN", ".build/release/sentio")
    out = subprocess.run([binary, "faces", "--video", str(video), "--json", "--threads", "1"],
                         check=True, capture_output=True, text=True).stdout
    return read_frames(out.splitlines())


def calibrate(frames, calibration_s):
    """Neutral EAR and smile: means over the calibration frames with exactly one face."""
    neutral = [f["faces"][0]["signals"] for f in frames if f["time"] < calibration_s and len(f["faces"]) == 1]
    if not neutral:
        return None
    return {"frames": len(neutral),
            "ear": sum((s["leftEAR"] + s["rightEAR"]) / 2 for s in neutral) / len(neutral),
            "smile": sum(s["smile"] for s in neutral) / len(neutral)}


def judge(frames, calibration=None, period=None):
    """The rules over `frames` (each with `time` and `faces`); returns one row per frame."""
    ear_thr = calibration["ear"] * CALIBRATED_EAR_FACTOR if calibration else EAR_THRESHOLD
    smile_thr = min(1.0, (calibration["smile"] if calibration else 0.0) + SMILE_THRESHOLD)
    if period is None:
        times = [f["time"] for f in frames]
        period = (times[-1] - times[0]) / (len(times) - 1) if len(times) > 1 else 1 / 15
    run, flicker = 0, 0
    since = {"eyesClosed": None, "smiling": None, "mouthOpen": None}
    rows = []
    for f in frames:
        n = len(f["faces"])
        state = {"eyesClosed": False, "smiling": False, "mouthOpen": False}
        row = {"frame": f.get("frame"), "time": f["time"], "faces": n}
        if n == 1:
            s = f["faces"][0]["signals"]
            if max(s["leftEAR"], s["rightEAR"]) < ear_thr:
                run += 1
                flicker = 0
            elif run > 0 and flicker < TOLERANCE:
                run += 1
                flicker += 1
            else:
                run, flicker = 0, 0
            state["eyesClosed"] = run >= CLOSED_FRAMES
            state["mouthOpen"] = s["MAR"] > OPEN_THRESHOLD
            state["smiling"] = s["MAR"] < CLOSED_MOUTH_THRESHOLD and s["smile"] > smile_thr
            row.update(ear=min(s["leftEAR"], s["rightEAR"]), earMax=max(s["leftEAR"], s["rightEAR"]), mar=s["MAR"], smile=s["smile"])
        else:
            run, flicker = 0, 0
        for k, v in state.items():
            if v and since[k] is None:
                since[k] = f["time"]
            elif not v:
                since[k] = None
            row[k] = v
            row[k + "Held"] = round(f["time"] - since[k] + period, 4) if v else 0.0
        rows.append(row)
    return rows, {"earThreshold": ear_thr, "smileThreshold": smile_thr}


def summary(frames, calibration_s=2.0):
    """Both variants' longest holds and the agreement of the uncalibrated one with the CLI's booleans."""
    out = {"frames": len(frames), "facesCounts": {}}
    for f in frames:
        k = str(len(f["faces"]))
        out["facesCounts"][k] = out["facesCounts"].get(k, 0) + 1
    rows, thr = judge(frames)
    agree = total = 0
    for f, r in zip(frames, rows):
        if len(f["faces"]) == 1:
            s = f["faces"][0]["signals"]
            for k in ("eyesClosed", "mouthOpen", "smiling"):
                total += 1
                agree += s[k] == r[k]
    out["uncalibrated"] = dict(thresholds=thr, **longest(rows))
    out["agreement"] = f"{agree}/{total}"
    cal = calibrate(frames, calibration_s)
    if cal:
        after = [f for f in frames if f["time"] >= calibration_s]
        rows_c, thr_c = judge(after, cal)
        out["calibrated"] = dict(calibration=cal, thresholds=thr_c, **longest(rows_c))
    else:
        out["calibrated"] = None  # no single face to calibrate on: the level cannot start
    return out


def longest(rows):
    return {k + "HeldMax": round(max([r[k + "Held"] for r in rows] or [0.0]), 3) for k in ("eyesClosed", "smiling", "mouthOpen")}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("jsonl", nargs="?", help="`sentio faces --video … --json` output (default: stdin)")
    ap.add_argument("--video", help="a Y4M clip: run $SENTIO_BIN faces --video on it")
    ap.add_argument("--calibration-s", type=float, default=2.0)
    ap.add_argument("--frames", action="store_true", help="print every frame's row (calibrated variant)")
    a = ap.parse_args(argv)
    if a.video:
        frames = run_sentio(a.video)
    else:
        frames = read_frames(open(a.jsonl) if a.jsonl else sys.stdin)
    if a.frames:
        cal = calibrate(frames, a.calibration_s)
        rows, _ = judge([f for f in frames if f["time"] >= a.calibration_s], cal)
        for r in rows:
            print(json.dumps(r))
    print(json.dumps(summary(frames, a.calibration_s)))


if __name__ == "__main__":
    main()
