#!/usr/bin/env python3
"""A float64 evaluation of a float TFLite model, to judge float32 engines against the exact
result rather than against each other (docs/neural-kernels.md: pose_landmark_full's
segmentation logits).

  scripts/reference/float64.py FOLDER [--sentio DIR] [--noise N]

FOLDER is one model's folder written by `litert.py outputs` (input0.bin, output*.bin,
ref_output*.bin, meta.json). Writes FOLDER/f64_output*.bin (float64) and prints, per output,
how far LiteRT's XNNPACK and reference kernels (and with --sentio, the outputs of
`sentio model run --output-dir DIR`, in the same order) are from it, in units of the parity
tolerance (max |a − b| / (5e-4 · max(1, max |b|)), as the tests count). --noise N repeats the
evaluation N times with every operator's result multiplied by (1 + u·2⁻²⁴), u uniform in
[−1, 1] — less than one float32 rounding per operator — to show how much an output moves
under noise alone.

Operators: those of the MediaPipe pose, face and hand models without custom ops
(CONV_2D, DEPTHWISE_CONV_2D, ADD, PAD, RESIZE_BILINEAR, RESHAPE, MAX_POOL_2D, LOGISTIC,
DEQUANTIZE of float16 weights); anything else stops with NotImplementedError. Runs in
litert.py's virtual environment (numpy and the `tflite` schema package).
"""
import json
import os
import sys

VENV = os.path.expanduser("~/.cache/sentio/venv-litert")


def activation(x, kind):
    if kind == 0:
        return x
    if kind == 1:
        return np.maximum(x, 0)
    if kind == 2:
        return np.clip(x, -1, 1)
    if kind == 3:
        return np.clip(x, 0, 6)
    raise NotImplementedError(f"fused activation {kind}")


def same_or_valid(padding, size, kernel, stride, dilation=1):
    """(padding before, output size) for TFLite's SAME (0) or VALID (1)."""
    extent = (kernel - 1) * dilation + 1
    if padding == 1:
        return 0, (size - extent) // stride + 1
    out = (size + stride - 1) // stride
    return max(0, (out - 1) * stride + extent - size) // 2, out


def convolution(x, w, b, sh, sw, dh, dw, padding, depthwise):
    n, h, wd, c = x.shape
    kh, kw = w.shape[1], w.shape[2]
    top, oh = same_or_valid(padding, h, kh, sh, dh)
    left, ow = same_or_valid(padding, wd, kw, sw, dw)
    padded = np.zeros((n, h + kh * dh + oh * sh, wd + kw * dw + ow * sw, c))
    padded[:, top:top + h, left:left + wd] = x
    out = 0
    for ky in range(kh):
        for kx in range(kw):
            patch = padded[:, ky * dh: ky * dh + oh * sh: sh, kx * dw: kx * dw + ow * sw: sw][:, :oh, :ow]
            out = out + (patch * w[0, ky, kx] if depthwise else patch @ w[:, ky, kx, :].T)
    return out + (b if b is not None else 0)


def resize_bilinear(x, oh, ow, align_corners, half_pixel):
    def table(size, out):
        scale = (size - 1) / (out - 1) if align_corners and out > 1 else size / out
        v = (np.arange(out) + 0.5) * scale - 0.5 if half_pixel else np.arange(out) * scale
        f = np.floor(v)
        return np.maximum(f, 0).astype(int), np.minimum(np.ceil(v), size - 1).astype(int), v - f
    y0, y1, fy = table(x.shape[1], oh)
    x0, x1, fx = table(x.shape[2], ow)
    fx = fx[None, None, :, None]
    top = x[:, y0][:, :, x0] * (1 - fx) + x[:, y0][:, :, x1] * fx
    bottom = x[:, y1][:, :, x0] * (1 - fx) + x[:, y1][:, :, x1] * fx
    return top * (1 - fy)[None, :, None, None] + bottom * fy[None, :, None, None]


def evaluate(path, inputs, noise=None):
    """The model's outputs {name: float64 array}; `noise` is a numpy Generator or None."""
    model = tflite.Model.GetRootAsModel(open(path, "rb").read(), 0)
    graph = model.Subgraphs(0)
    names = {v: k for k, v in tflite.BuiltinOperator.__dict__.items() if not k.startswith("_")}
    values = {}
    for i in range(graph.TensorsLength()):
        tensor = graph.Tensors(i)
        buffer = model.Buffers(tensor.Buffer())
        if buffer.DataLength():
            kind = {0: np.float32, 1: np.float16, 2: np.int32}[tensor.Type()]
            data = np.frombuffer(buffer.DataAsNumpy().tobytes(), kind).reshape(tensor.ShapeAsNumpy() if tensor.ShapeLength() else ())
            values[i] = data if kind == np.int32 else data.astype(np.float64)
    for index, x in zip([graph.Inputs(i) for i in range(graph.InputsLength())], inputs):
        values[index] = x.astype(np.float64)
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        name = names[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]
        x = [values.get(op.Inputs(j)) if op.Inputs(j) >= 0 else None for j in range(op.InputsLength())]
        table = op.BuiltinOptions()
        if name == "DEQUANTIZE":
            y = x[0].astype(np.float64)
        elif name in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            o = tflite.Conv2DOptions() if name == "CONV_2D" else tflite.DepthwiseConv2DOptions()
            o.Init(table.Bytes, table.Pos)
            y = convolution(x[0], x[1], x[2] if len(x) > 2 else None, o.StrideH(), o.StrideW(), o.DilationHFactor(),
                            o.DilationWFactor(), o.Padding(), name == "DEPTHWISE_CONV_2D")
            y = activation(y, o.FusedActivationFunction())
        elif name == "ADD":
            o = tflite.AddOptions()
            o.Init(table.Bytes, table.Pos)
            y = activation(x[0] + x[1], o.FusedActivationFunction())
        elif name == "PAD":
            y = np.pad(x[0], x[1])
        elif name == "RESIZE_BILINEAR":
            o = tflite.ResizeBilinearOptions()
            o.Init(table.Bytes, table.Pos)
            y = resize_bilinear(x[0], int(x[1][0]), int(x[1][1]), o.AlignCorners(), o.HalfPixelCenters())
        elif name == "RESHAPE":
            y = x[0].reshape(graph.Tensors(op.Outputs(0)).ShapeAsNumpy())
        elif name == "MAX_POOL_2D":
            o = tflite.Pool2DOptions()
            o.Init(table.Bytes, table.Pos)
            n, h, w, c = x[0].shape
            kh, kw, sh, sw = o.FilterHeight(), o.FilterWidth(), o.StrideH(), o.StrideW()
            top, oh = same_or_valid(o.Padding(), h, kh, sh)
            left, ow = same_or_valid(o.Padding(), w, kw, sw)
            padded = np.full((n, h + 2 * kh + oh * sh, w + 2 * kw + ow * sw, c), -np.inf)
            padded[:, top:top + h, left:left + w] = x[0]
            y = np.full((n, oh, ow, c), -np.inf)
            for ky in range(kh):
                for kx in range(kw):
                    y = np.maximum(y, padded[:, ky: ky + oh * sh: sh, kx: kx + ow * sw: sw][:, :oh, :ow])
            y = activation(y, o.FusedActivationFunction())
        elif name == "LOGISTIC":
            y = 1 / (1 + np.exp(-x[0]))
        else:
            raise NotImplementedError(name)
        if noise is not None and name not in ("DEQUANTIZE", "RESHAPE"):
            y = y * (1 + noise.uniform(-1, 1, y.shape) * 2.0 ** -24)
        values[op.Outputs(0)] = y
    return {graph.Tensors(graph.Outputs(i)).Name().decode(): values[graph.Outputs(i)] for i in range(graph.OutputsLength())}


def ratio(ours, exact):
    return float(np.abs(ours - exact).max() / (5e-4 * max(1, np.abs(exact).max())))


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("--sentio")
    parser.add_argument("--noise", type=int, default=0)
    parser.add_argument("--models", default=os.environ.get("SENTIO_MODELS") or os.path.expanduser("~/.cache/sentio/models"))
    args = parser.parse_args()
    meta = json.load(open(os.path.join(args.folder, "meta.json")))
    model = meta["model"] if os.path.exists(meta["model"]) else os.path.join(args.models, meta["model"] + ".tflite")
    x = np.fromfile(os.path.join(args.folder, "input0.bin"), "<f4").reshape(meta["inputs"][0]["shape"])
    exact = evaluate(model, [x])
    noisy = [evaluate(model, [x], np.random.default_rng(seed)) for seed in range(args.noise)]
    for j, output in enumerate(meta["outputs"]):
        e = exact[output["name"]].ravel()
        e.astype("<f8").tofile(os.path.join(args.folder, f"f64_output{j}.bin"))
        line = f"{output['name']:12s} from float64: XNNPACK {ratio(np.fromfile(os.path.join(args.folder, f'output{j}.bin'), '<f4'), e):7.3f}"
        line += f"  LiteRT reference {ratio(np.fromfile(os.path.join(args.folder, f'ref_output{j}.bin'), '<f4'), e):7.3f}"
        if args.sentio:
            line += f"  Sentio {ratio(np.fromfile(os.path.join(args.sentio, f'{j}.bin'), '<f4'), e):7.3f}"
        if noisy:
            moved = sorted(ratio(n[output["name"]].ravel(), e) for n in noisy)
            line += f"  noise alone: median {moved[len(moved) // 2]:.3f}, max {moved[-1]:.3f}"
        print(line)


if __name__ == "__main__":
    if os.path.realpath(sys.prefix) != os.path.realpath(VENV):
        python = os.path.join(VENV, "bin", "python")
        if not os.path.exists(python):
            sys.exit(f"float64.py: {python} is missing; run scripts/reference/litert.py once first")
        os.execv(python, [python, *sys.argv])
    import numpy as np
    import tflite
    main()
