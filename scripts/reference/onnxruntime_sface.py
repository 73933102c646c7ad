#!/usr/bin/env python3
"""Reference outputs of OpenCV Zoo's SFace face descriptor (ONNX) by onnxruntime, for Sentio's
ONNX loader to be checked against (Tests/SentioNeuralTests/ONNXTests.swift), and its speed.

Runs in a venv of its own (~/.cache/sentio/venv-onnxruntime, made on first use: onnxruntime,
numpy, pillow from PyPI). For each photo: the central square, resized to 112×112 (Pillow,
bilinear), RGB 0–255 as float32 — the model normalises inside ((x − 127.5) / 128). Writes, under
--out (default ~/.cache/sentio/reference/onnxruntime-<version>/sface):
  <photo key>/input_nhwc.bin   the input as Sentio takes it, [1, 112, 112, 3] float32 LE
  <photo key>/output.bin       onnxruntime's descriptor, 128 float32 LE
  meta.json                    versions, the model's SHA-256, the photos
`bench` times onnxruntime on one thread (median of --runs, after --warmup) for the
side-by-side ratio with `sentio model bench … --threads 1` (scripts/bench-onnx).

Usage: scripts/reference/onnxruntime_sface.py outputs [--model PATH] [--out DIR] PHOTO|FOLDER…
       scripts/reference/onnxruntime_sface.py bench [--model PATH] [--runs 50] [--warmup 5]
"""
import argparse, hashlib, json, os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_support import fixture_key, images, reexec_in_venv

VENV = os.path.expanduser("~/.cache/sentio/venv-onnxruntime")
PACKAGES = ["onnxruntime==1.32.0", "onnx", "numpy", "pillow"]
MODEL = os.path.expanduser("~/.cache/sentio/models/face_recognition_sface_2021dec.onnx")


def session(path):
    """onnxruntime on one thread, at its best: the model's weights are also listed as graph
    inputs (an old exporter's habit), which keeps onnxruntime from folding BatchNormalization
    into the convolutions, so they are taken out of the inputs first (as onnxruntime's own
    remove_initializer_from_input tool does)."""
    import onnx
    import onnxruntime as ort
    ort.set_default_logger_severity(3)
    model = onnx.load(path)
    weights = {t.name for t in model.graph.initializer}
    for value in [i for i in model.graph.input if i.name in weights]:
        model.graph.input.remove(value)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def crop(path):
    import numpy as np
    from PIL import Image
    image = Image.open(path).convert("RGB")
    side = min(image.size)
    left, top = (image.width - side) // 2, (image.height - side) // 2
    image = image.crop((left, top, left + side, top + side)).resize((112, 112), Image.BILINEAR)
    return np.asarray(image, dtype=np.float32)  # [112, 112, 3]


def outputs(args):
    import numpy as np
    import onnxruntime as ort
    out = args.out or os.path.expanduser(f"~/.cache/sentio/reference/onnxruntime-{ort.__version__}/sface")
    s = session(args.model)
    name = s.get_inputs()[0].name
    photos = []
    for path in images(args.photos):
        key = fixture_key(path).replace("/", "__")
        nhwc = crop(path)
        nchw = np.ascontiguousarray(nhwc.transpose(2, 0, 1)[None])
        descriptor = s.run(None, {name: nchw})[0].reshape(-1).astype("<f4")
        folder = os.path.join(out, key)
        os.makedirs(folder, exist_ok=True)
        nhwc[None].astype("<f4").tofile(os.path.join(folder, "input_nhwc.bin"))
        descriptor.tofile(os.path.join(folder, "output.bin"))
        photos.append(key)
    sha = hashlib.sha256(open(args.model, "rb").read()).hexdigest()
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump({"onnxruntime": ort.__version__, "model": os.path.basename(args.model), "sha256": sha, "photos": photos,
                   "input": "central square, 112x112 bilinear (Pillow), RGB 0-255 float32"}, f, indent=1)
    print(f"onnxruntime_sface: {len(photos)} photos in {out}")


def bench(args):
    import numpy as np
    s = session(args.model)
    x = np.random.default_rng(1).uniform(0, 255, (1, 3, 112, 112)).astype(np.float32)
    name = s.get_inputs()[0].name
    for _ in range(args.warmup):
        s.run(None, {name: x})
    times = []
    for _ in range(args.runs):
        t = time.perf_counter()
        s.run(None, {name: x})
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    print(json.dumps({"median_ms": times[len(times) // 2], "min_ms": times[0], "max_ms": times[-1], "threads": 1, "runs": args.runs}))


def main():
    reexec_in_venv(VENV, "onnxruntime_sface.py", lambda pip: __import__("subprocess").run([*pip, *PACKAGES], check=True))
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    o = sub.add_parser("outputs")
    o.add_argument("--model", default=MODEL)
    o.add_argument("--out")
    o.add_argument("photos", nargs="+")
    b = sub.add_parser("bench")
    b.add_argument("--model", default=MODEL)
    b.add_argument("--runs", type=int, default=50)
    b.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    if not os.path.exists(args.model):
        sys.exit(f"onnxruntime_sface: no model {args.model} (run scripts/fetch-models --only face_recognition_sface_2021dec)")
    {"outputs": outputs, "bench": bench}[args.command](args)


if __name__ == "__main__":
    main()
