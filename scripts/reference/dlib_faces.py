#!/usr/bin/env python3
"""Reference outputs and timings of face_recognition 1.3.0 on dlib 20 (PyPI: dlib-bin 20.0.1,
the prebuilt dlib the fixtures' dlib_reference.json was made with), the peer of Sentio's face
recognition.

Runs inside a virtual environment of its own (~/.cache/sentio/venv-dlib): dlib-bin,
face_recognition_models 0.3.0, numpy, pillow and click from PyPI, face_recognition 1.3.0
installed without dependencies (it asks for the `dlib` source package, which dlib-bin provides).

  scripts/reference/dlib_faces.py faces [--out FILE] IMAGE_OR_FOLDER ...
      For every image, as displayed (EXIF orientation applied, RGB): the faces of
      face_recognition.face_locations (HOG, upsampled once — its default), and for each the
      5-point landmarks (pose_predictor_5_point), the 68-point landmarks and the 128-d
      face_encodings descriptor (num_jitters=1, model "small", its defaults) computed from that
      box. Writes JSON (default ~/.cache/sentio/reference/dlib-20.0.1/faces.json) keyed by the
      path relative to the fixtures folder; boxes are dlib rectangles [left, top, right, bottom].

  scripts/reference/dlib_faces.py detect [--out FILE] [--max-megapixels M] [--upsample U] IMAGE_OR_FOLDER ...
      For every image of at most M megapixels (default 1; dlib's CNN detector takes about 8 s
      per megapixel on one core here, four times that per upsampling): the faces of
      dlib.cnn_face_detection_model_v1 with mmod_human_face_detector.dat from
      face_recognition_models, upsample_num_times=U (default 0), in dlib's order, each its
      rectangle [left, top, right, bottom] and confidence. Default output
      ~/.cache/sentio/reference/dlib-20.0.1/mmod.json (mmod_up<U>.json when U > 0).

  scripts/reference/dlib_faces.py bench [--runs N] [--cnn-runs M] IMAGE
      One JSON object: the median, min and max wall time of face_recognition.face_encodings on
      the image (detection, landmarks and descriptor — the whole pipeline), and of the
      descriptor net alone on the first face's 150×150 chip, and of the CNN face detector
      (not upsampled) on the whole image (M runs, default 3: it is slow), each after 2 warm-up
      runs.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from reference_support import fixture_key, images, reexec_in_venv

VENV = os.path.expanduser("~/.cache/sentio/venv-dlib")
DEFAULT_OUT = os.path.expanduser("~/.cache/sentio/reference/dlib-20.0.1/faces.json")
DEFAULT_MMOD_OUT = os.path.expanduser("~/.cache/sentio/reference/dlib-20.0.1/mmod.json")


def install(pip):
    subprocess.run(pip + ["dlib-bin==20.0.1", "numpy", "pillow", "click", "face_recognition_models==0.3.0"], check=True)
    subprocess.run(pip + ["--no-deps", "face_recognition==1.3.0"], check=True)


def ensure_venv():
    # One thread, as the speed comparisons are single-threaded.
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    reexec_in_venv(VENV, "dlib_faces.py", install, env)


def load(path):
    import numpy as np
    from PIL import Image, ImageOps
    return np.ascontiguousarray(np.asarray(ImageOps.exif_transpose(Image.open(path)).convert("RGB")))


def faces(args):
    import dlib
    import face_recognition
    import face_recognition_models as models
    sp68 = dlib.shape_predictor(models.pose_predictor_model_location())
    out = {}
    for path in images(args.paths):
        img = load(path)
        locations = face_recognition.face_locations(img)  # (top, right, bottom, left)
        encodings = face_recognition.face_encodings(img, locations)
        found = []
        for (top, right, bottom, left), enc in zip(locations, encodings):
            rect = dlib.rectangle(left, top, right, bottom)
            s5 = face_recognition.api.pose_predictor_5_point(img, rect)
            s68 = sp68(img, rect)
            found.append({"rect": [left, top, right, bottom],
                          "landmarks5": [[p.x, p.y] for p in s5.parts()],
                          "landmarks68": [[p.x, p.y] for p in s68.parts()],
                          "descriptor": [float(v) for v in enc]})
        out[fixture_key(path)] = {"width": img.shape[1], "height": img.shape[0], "faces": found}
        print(f"dlib_faces.py: {path}: {len(found)} faces", file=sys.stderr, flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f)


def cnn_detector():
    import dlib
    import face_recognition_models as models
    return dlib.cnn_face_detection_model_v1(models.cnn_face_detector_model_location())


def detect(args):
    detector = cnn_detector()
    out = {}
    for path in images(args.paths):
        img = load(path)
        if img.shape[0] * img.shape[1] > args.max_megapixels * 1e6:
            continue
        start = time.perf_counter()
        found = [{"rect": [d.rect.left(), d.rect.top(), d.rect.right(), d.rect.bottom()], "confidence": d.confidence}
                 for d in detector(img, args.upsample)]
        out[fixture_key(path)] = {"width": img.shape[1], "height": img.shape[0], "upsample": args.upsample, "faces": found}
        print(f"dlib_faces.py: {path}: {len(found)} faces, {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    target = args.out or (DEFAULT_MMOD_OUT if args.upsample == 0 else DEFAULT_MMOD_OUT.replace(".json", f"_up{args.upsample}.json"))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w") as f:
        json.dump(out, f)


def bench(args):
    import dlib
    import face_recognition
    import numpy as np
    img = load(args.image)

    def timed(fn, runs=args.runs):
        for _ in range(2):
            fn()
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1e3)
        return {"median_ms": float(np.median(times)), "min_ms": min(times), "max_ms": max(times)}

    locations = face_recognition.face_locations(img)
    if not locations:
        sys.exit(f"dlib_faces.py: no face in {args.image}")
    top, right, bottom, left = locations[0]
    shape = face_recognition.api.pose_predictor_5_point(img, dlib.rectangle(left, top, right, bottom))
    chip = dlib.get_face_chip(img, shape, size=150, padding=0.25)
    net = face_recognition.api.face_encoder
    detector = cnn_detector()
    result = {"image": args.image, "runs": args.runs,
              "pipeline": timed(lambda: face_recognition.face_encodings(img)),
              "descriptor_net": timed(lambda: net.compute_face_descriptor(chip)),
              "cnn_detector": timed(lambda: detector(img, 0), args.cnn_runs)}
    print(json.dumps(result))


def main():
    ensure_venv()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("faces")
    f.add_argument("--out", default=DEFAULT_OUT)
    f.add_argument("paths", nargs="+")
    d = sub.add_parser("detect")
    d.add_argument("--out")
    d.add_argument("--max-megapixels", type=float, default=1.0)
    d.add_argument("--upsample", type=int, default=0)
    d.add_argument("paths", nargs="+")
    b = sub.add_parser("bench")
    b.add_argument("--runs", type=int, default=10)
    b.add_argument("--cnn-runs", type=int, default=3)
    b.add_argument("image")
    args = parser.parse_args()
    {"faces": faces, "detect": detect, "bench": bench}[args.command](args)


if __name__ == "__main__":
    main()
