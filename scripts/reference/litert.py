#!/usr/bin/env python3
"""Reference outputs and timings of LiteRT (ai-edge-litert 2.3.0, its XNNPACK path) for the
models Sentio's engine runs, so parity tests and speed ratios have a peer to compare with.

Runs inside a virtual environment of its own (~/.cache/sentio/venv-litert, made on first use
with ai-edge-litert==2.3.0, numpy and pillow from PyPI).

  scripts/reference/litert.py outputs [--image PHOTO] [--out DIR] [MODEL ...]
      Feeds each model a real photo (default: matplotlib's Grace Hopper from the sample store)
      resized bilinearly to the model's input and scaled to [0, 1]; writes DIR/MODEL/input0.bin,
      DIR/MODEL/output0.bin, … (raw little-endian float32, NHWC; XNNPACK, LiteRT's default),
      DIR/MODEL/ref_output0.bin, … (LiteRT's BUILTIN_REF kernels on the same input: how far
      LiteRT itself strays from XNNPACK) and DIR/MODEL/meta.json (names and shapes). DIR
      defaults to ~/.cache/sentio/reference/litert-2.3.0.

  scripts/reference/litert.py bench [--threads 1] [--runs 50] [--warmup 5] MODEL ...
      Prints one JSON line per model: {"model", "threads", "median_ms", "min_ms", "max_ms"}.

Models are names in the model store ($SENTIO_MODELS, default ~/.cache/sentio/models) or paths.
LiteRT cannot run MediaPipe's custom Convolution2DTransposeBias (the two selfie-segmentation
models): those are rewritten to the builtin TRANSPOSE_CONV first (tconv_rewrite.py; the result
reproduces the fixtures' selfie reference outputs exactly).
"""
import json
import os
import subprocess
import sys

VENV = os.path.expanduser("~/.cache/sentio/venv-litert")
PACKAGES = ["ai-edge-litert==2.3.0", "numpy", "pillow", "tflite==2.18.0", "flatbuffers"]
MODELS = os.environ.get("SENTIO_MODELS") or os.path.expanduser("~/.cache/sentio/models")
SAMPLES = os.environ.get("SENTIO_SAMPLES") or os.path.expanduser("~/.cache/sentio/samples")
DEFAULT_OUT = os.path.expanduser("~/.cache/sentio/reference/litert-2.3.0")
ALL = ["face_detection_short_range", "face_detection_full_range_sparse", "face_landmark", "iris_landmark",
       "palm_detection_full", "palm_detection_lite", "hand_landmark_full", "hand_landmark_lite",
       "pose_detection", "pose_landmark_full", "selfie_segmentation", "selfie_segmentation_landscape", "hand_recrop"]
REWRITTEN = os.path.expanduser("~/.cache/sentio/reference/models")


def ensure_venv():
    """Re-executes this script inside the venv, creating it first when needed."""
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    python = os.path.join(VENV, "bin", "python")
    stamp = os.path.join(VENV, ".packages")
    if not os.path.exists(python):
        print("litert.py: creating", VENV, file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    if not os.path.exists(stamp) or open(stamp).read() != " ".join(PACKAGES):
        subprocess.run([python, "-m", "pip", "install", "--quiet", *PACKAGES], check=True)
        with open(stamp, "w") as f:
            f.write(" ".join(PACKAGES))
    os.execv(python, [python, *sys.argv])


def model_path(name):
    """The model file; models with MediaPipe's custom Convolution2DTransposeBias (which LiteRT
    cannot run) are rewritten once to the builtin TRANSPOSE_CONV (tconv_rewrite.py)."""
    path = name if os.path.exists(name) else os.path.join(MODELS, name + ".tflite")
    with open(path, "rb") as f:
        data = f.read()
    if b"Convolution2DTransposeBias" not in data:
        return path
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tconv_rewrite
    os.makedirs(REWRITTEN, exist_ok=True)
    target = os.path.join(REWRITTEN, os.path.basename(path).replace(".tflite", "_builtin_tconv.tflite"))
    if not os.path.exists(target):
        with open(target + ".part", "wb") as f:
            f.write(tconv_rewrite.rewrite(data))
        os.replace(target + ".part", target)
    return target


def interpreter(name, threads, reference=False):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    kind = OpResolverType.BUILTIN_REF if reference else OpResolverType.AUTO
    it = Interpreter(model_path=model_path(name), num_threads=threads, experimental_op_resolver_type=kind)
    it.allocate_tensors()
    return it


def outputs(args):
    import numpy as np
    from PIL import Image
    image = args.image or os.path.join(SAMPLES, "grace_hopper.jpg")
    photo = Image.open(image).convert("RGB")
    for name in args.models or ALL:
        it = interpreter(name, 1)
        folder = os.path.join(args.out, os.path.basename(name).replace(".tflite", ""))
        os.makedirs(folder, exist_ok=True)
        meta = {"model": name, "image": os.path.basename(image), "inputs": [], "outputs": []}
        for i, d in enumerate(it.get_input_details()):
            _, h, w, c = d["shape"]
            x = np.asarray(photo.resize((int(w), int(h)), Image.BILINEAR), dtype=np.float32)[None] / 255.0
            x = x[..., :c] if c <= 3 else np.concatenate([x] * (c // 3 + 1), axis=-1)[..., :c]
            it.set_tensor(d["index"], x.astype(np.float32))
            x.astype("<f4").tofile(os.path.join(folder, f"input{i}.bin"))
            meta["inputs"].append({"name": d["name"], "shape": [int(v) for v in d["shape"]]})
        it.invoke()
        ref = interpreter(name, 1, reference=True)
        for d in ref.get_input_details():
            ref.set_tensor(d["index"], it.get_tensor(d["index"]))
        ref.invoke()
        ref_outputs = {d["name"]: ref.get_tensor(d["index"]) for d in ref.get_output_details()}
        for i, d in enumerate(it.get_output_details()):
            y = it.get_tensor(d["index"])
            y.astype("<f4").tofile(os.path.join(folder, f"output{i}.bin"))
            ref_outputs[d["name"]].astype("<f4").tofile(os.path.join(folder, f"ref_output{i}.bin"))
            meta["outputs"].append({"name": d["name"], "shape": [int(v) for v in y.shape]})
        with open(os.path.join(folder, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        print(f"litert.py: {name}: {len(meta['outputs'])} outputs written to {folder}", file=sys.stderr)


def bench(args):
    import time
    import numpy as np
    for name in args.models or ALL:
        it = interpreter(name, args.threads)
        for d in it.get_input_details():
            n = int(np.prod(d["shape"]))
            it.set_tensor(d["index"], ((np.arange(n) * 7919 % 256) / 255).astype(np.float32).reshape(d["shape"]))
        for _ in range(args.warmup):
            it.invoke()
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            it.invoke()
            times.append((time.perf_counter() - start) * 1e3)
        times.sort()
        print(json.dumps({"model": os.path.basename(name), "threads": args.threads, "median_ms": times[len(times) // 2],
                          "min_ms": times[0], "max_ms": times[-1]}), flush=True)


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    o = sub.add_parser("outputs")
    o.add_argument("--image")
    o.add_argument("--out", default=DEFAULT_OUT)
    o.add_argument("models", nargs="*")
    b = sub.add_parser("bench")
    b.add_argument("--threads", type=int, default=1)
    b.add_argument("--runs", type=int, default=50)
    b.add_argument("--warmup", type=int, default=5)
    b.add_argument("models", nargs="*")
    args = parser.parse_args()
    ensure_venv()
    outputs(args) if args.command == "outputs" else bench(args)


if __name__ == "__main__":
    main()
