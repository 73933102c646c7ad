#!/usr/bin/env python3
"""Reference outputs and timings of MediaPipe 0.10.21's legacy solutions (the peer of
Sentio's face, hand and pose pipelines), so parity tests and speed ratios have something to
compare with.

Runs inside a virtual environment of its own (~/.cache/sentio/venv-mediapipe): the mediapipe
wheel itself (the one scripts/fetch-models keeps in ~/.cache/sentio/downloads, installed without
its optional dependencies: jax, sounddevice and the GUI OpenCV are not needed by the legacy
solutions) plus numpy<2, protobuf<5, absl-py, attrs, flatbuffers, matplotlib, pillow and
opencv-contrib-python-headless from PyPI.

  scripts/reference/mediapipe_solutions.py faces [--out FILE] [--runs N] IMAGE_OR_FOLDER ...
      For every image: face_detection (model 0 and 1, min confidence 0.5) and face_mesh (static
      image mode, up to 10 faces, no iris refinement) results in normalized coordinates, and the
      median wall time of detection + mesh over N runs (default 5). Writes JSON (default
      ~/.cache/sentio/reference/mediapipe-0.10.21/faces.json); keys are the paths relative to
      the fixtures folder (or as given for images elsewhere).

  scripts/reference/mediapipe_solutions.py hands [--out FILE] [--runs N] IMAGE_OR_FOLDER ...
      MediaPipe Hands (static image mode, model complexity 1, up to 2 hands): per image the
      21 landmarks, handedness and its score, and the median time (default output
      ~/.cache/sentio/reference/mediapipe-0.10.21/hands.json).

  scripts/reference/mediapipe_solutions.py pose [--out FILE] [--runs N] IMAGE_OR_FOLDER ...
      MediaPipe Pose (static image mode, model complexity 1): per image the 33 landmarks with
      visibility (default output ~/.cache/sentio/reference/mediapipe-0.10.21/pose.json).

  scripts/reference/mediapipe_solutions.py bench [--task faces|hands|pose] [--runs N] IMAGE ...
      One JSON line per image: median, min and max wall time of one process() in static image
      mode (face_mesh, hands or pose, end to end) after 3 warm-up runs.
"""
import glob
import json
import os
import subprocess
import sys
import time

from reference_support import fixture_key, images, reexec_in_venv

VENV = os.path.expanduser("~/.cache/sentio/venv-mediapipe")
DOWNLOADS = os.path.expanduser("~/.cache/sentio/downloads")
PACKAGES = ["numpy<2", "protobuf>=4.25.3,<5", "absl-py", "attrs", "flatbuffers", "matplotlib", "pillow",
            "opencv-contrib-python-headless"]
DEFAULT_OUT = os.path.expanduser("~/.cache/sentio/reference/mediapipe-0.10.21/faces.json")


def install(pip):
    wheels = glob.glob(os.path.join(DOWNLOADS, "mediapipe-0.10.21-*.whl"))
    subprocess.run(pip + ["--no-deps", wheels[0] if wheels else "mediapipe==0.10.21"], check=True)
    subprocess.run(pip + PACKAGES, check=True)


def ensure_venv():
    reexec_in_venv(VENV, "mediapipe_solutions.py", install)


def faces(args):
    import mediapipe as mp
    import numpy as np
    from PIL import Image, ImageOps
    out = {}
    det0 = mp.solutions.face_detection.FaceDetection(model_selection=0, min_detection_confidence=0.5)
    det1 = mp.solutions.face_detection.FaceDetection(model_selection=1, min_detection_confidence=0.5)
    mesh = mp.solutions.face_mesh.FaceMesh(static_image_mode=True, max_num_faces=10, refine_landmarks=False,
                                           min_detection_confidence=0.5)

    def detections(result):
        found = []
        for d in result.detections or []:
            b = d.location_data.relative_bounding_box
            found.append({"box": [b.xmin, b.ymin, b.width, b.height], "score": d.score[0],
                          "keypoints": [[k.x, k.y] for k in d.location_data.relative_keypoints]})
        return found

    for path in images(args.paths):
        # As displayed: EXIF orientation applied, RGB.
        img = np.asarray(ImageOps.exif_transpose(Image.open(path)).convert("RGB"))
        entry = {"width": img.shape[1], "height": img.shape[0],
                 "short": detections(det0.process(img)), "full": detections(det1.process(img))}
        m = mesh.process(img)
        entry["mesh"] = [[[p.x, p.y, p.z] for p in f.landmark] for f in (m.multi_face_landmarks or [])]
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            det0.process(img)
            mesh.process(img)
            times.append((time.perf_counter() - start) * 1e3)
        entry["ms"] = sorted(times)[len(times) // 2]
        # Keys relative to the fixtures folder when the image is in it, so any checkout can read them.
        out[fixture_key(path)] = entry
        print(f"mediapipe_solutions.py: {path}: {len(entry['short'])} faces", file=sys.stderr, flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f)


def collect(args, solution, extract, noun):
    """Runs `solution` on every image: what `extract` makes of the result, and the median time
    of args.runs further runs; writes JSON keyed by path relative to the fixtures."""
    import numpy as np
    from PIL import Image, ImageOps
    out = {}
    for path in images(args.paths):
        img = np.asarray(ImageOps.exif_transpose(Image.open(path)).convert("RGB"))
        found = extract(solution.process(img))
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            solution.process(img)
            times.append((time.perf_counter() - start) * 1e3)
        out[fixture_key(path)] = {"width": img.shape[1], "height": img.shape[0], noun: found,
                                               "ms": sorted(times)[len(times) // 2]}
        print(f"mediapipe_solutions.py: {path}: {len(found)} {noun}", file=sys.stderr, flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f)


def hands(args):
    """MediaPipe Hands (static image mode, model complexity 1, up to 2 hands) on every image."""
    import mediapipe as mp
    solution = mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2, model_complexity=1,
                                        min_detection_confidence=0.5)

    def extract(r):
        return [{"landmarks": [[p.x, p.y, p.z] for p in lm.landmark], "handedness": side.classification[0].label,
                 "score": side.classification[0].score}
                for lm, side in zip(r.multi_hand_landmarks or [], r.multi_handedness or [])]

    collect(args, solution, extract, "hands")


def pose(args):
    """MediaPipe Pose (static image mode, model complexity 1) on every image."""
    import mediapipe as mp
    solution = mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1, min_detection_confidence=0.5)

    def extract(r):
        return [[[p.x, p.y, p.z, p.visibility] for p in r.pose_landmarks.landmark]] if r.pose_landmarks else []

    collect(args, solution, extract, "poses")


def bench(args):
    """Median wall time of one static-image process() per image: face_mesh (detection + mesh),
    hands (palm detection + landmarks, complexity 1) or pose (detection + landmarks)."""
    import mediapipe as mp
    import numpy as np
    from PIL import Image, ImageOps
    if args.task == "hands":
        mesh = mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2, model_complexity=1, min_detection_confidence=0.5)
    elif args.task == "pose":
        mesh = mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1, min_detection_confidence=0.5)
    else:
        mesh = mp.solutions.face_mesh.FaceMesh(static_image_mode=True, max_num_faces=10, refine_landmarks=False,
                                               min_detection_confidence=0.5)
    for path in args.paths:
        img = np.asarray(ImageOps.exif_transpose(Image.open(path)).convert("RGB"))
        for _ in range(3):
            mesh.process(img)
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            mesh.process(img)
            times.append((time.perf_counter() - start) * 1e3)
        times.sort()
        print(json.dumps({"image": path, "median_ms": times[len(times) // 2], "min_ms": times[0], "max_ms": times[-1]}), flush=True)


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("faces")
    f.add_argument("--out", default=DEFAULT_OUT)
    f.add_argument("--runs", type=int, default=5)
    f.add_argument("paths", nargs="+")
    h = sub.add_parser("hands")
    h.add_argument("--out", default=os.path.join(os.path.dirname(DEFAULT_OUT), "hands.json"))
    h.add_argument("--runs", type=int, default=5)
    h.add_argument("paths", nargs="+")
    q = sub.add_parser("pose")
    q.add_argument("--out", default=os.path.join(os.path.dirname(DEFAULT_OUT), "pose.json"))
    q.add_argument("--runs", type=int, default=5)
    q.add_argument("paths", nargs="+")
    b = sub.add_parser("bench")
    b.add_argument("--runs", type=int, default=30)
    b.add_argument("--task", choices=["faces", "hands", "pose"], default="faces")
    b.add_argument("paths", nargs="+")
    args = parser.parse_args()
    ensure_venv()
    {"faces": faces, "hands": hands, "pose": pose, "bench": bench}[args.command](args)


if __name__ == "__main__":
    main()
