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

  scripts/reference/litert.py photos --out DIR MODEL PHOTO_OR_DIR ...
      For a quantized image model (uint8 or int8 input): each photo resized bilinearly to the
      input (PIL, EXIF ignored) and fed as raw pixels; writes DIR/STEM/input0.bin and, in the
      output's own type, DIR/STEM/output0.bin (XNNPACK, LiteRT's default) and
      DIR/STEM/ref_output0.bin (BUILTIN_REF), plus DIR/index.json listing the stems.

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


def photos(args):
    import numpy as np
    from PIL import Image
    files = []
    for p in args.photos:
        if os.path.isdir(p):
            files += [os.path.join(p, f) for f in sorted(os.listdir(p)) if f.lower().endswith((".jpg", ".jpeg", ".png", ".webp"))]
        else:
            files.append(p)
    it, ref = interpreter(args.model, 1), interpreter(args.model, 1, reference=True)
    d = it.get_input_details()[0]
    _, h, w, c = (int(v) for v in d["shape"])
    assert d["dtype"] in (np.uint8, np.int8), "photos: the model's input is not quantized"
    stems = []
    for f in files:
        stem = os.path.basename(os.path.dirname(f)) + "__" + os.path.splitext(os.path.basename(f))[0]
        folder = os.path.join(args.out, stem)
        os.makedirs(folder, exist_ok=True)
        x = np.asarray(Image.open(f).convert("RGB").resize((w, h), Image.BILINEAR), dtype=np.uint8)[None]
        if d["dtype"] == np.int8:
            x = (x.astype(np.int16) - 128).astype(np.int8)
        x.tofile(os.path.join(folder, "input0.bin"))
        for interp, name in ((it, "output0.bin"), (ref, "ref_output0.bin")):
            interp.set_tensor(interp.get_input_details()[0]["index"], x)
            interp.invoke()
            interp.get_tensor(interp.get_output_details()[0]["index"]).tofile(os.path.join(folder, name))
        stems.append({"stem": stem, "photo": os.path.relpath(f, args.base) if args.base else f})
    with open(os.path.join(args.out, "index.json"), "w") as out:
        json.dump({"model": os.path.basename(args.model), "photos": stems}, out, indent=1)
    print(f"litert.py: {len(stems)} photos written to {args.out}", file=sys.stderr)


def bench(args):
    import time
    import numpy as np
    for name in args.models or ALL:
        it = interpreter(name, args.threads)
        for d in it.get_input_details():
            n = int(np.prod(d["shape"]))
            # The same fixed input as `sentio model bench`: in [0, 1] for float inputs, the raw
            # bytes themselves for quantized ones.
            pattern = np.arange(n) * 7919 % 256
            value = pattern.astype(d["dtype"]) if d["dtype"] != np.float32 else (pattern / 255).astype(np.float32)
            it.set_tensor(d["index"], value.reshape(d["shape"]))
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
    p = sub.add_parser("photos")
    p.add_argument("--out", required=True)
    p.add_argument("--base", help="write photo paths relative to this folder")
    p.add_argument("model")
    p.add_argument("photos", nargs="+")
    args = parser.parse_args()
    ensure_venv()
    if args.command == "photos":
        args.model = model_path(args.model)
    {"outputs": outputs, "bench": bench, "photos": photos}[args.command](args)


if __name__ == "__main__":
    main()
