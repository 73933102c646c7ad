#!/usr/bin/env python3
"""VQF (Laidig and Seel, 2023; PyPI `vqf`, its C++ core) run on the BROAD traces and on an
in-memory benchmark, beside `sentio motion fuse` / `sentio motion bench`.

    vqf_reference.py errors TRACE.csv.gz...   # BROAD RMSE (total, heading, inclination) in degrees, 9D and 6D
    vqf_reference.py bench [--samples N]      # {"samples_per_s"} for updateBatch, median of 11 runs

The error metric is BROAD's, written out as in Sources/SentioMotion/Evaluation.swift; VQF
runs with its default parameters, causally (updateBatch, no offline smoothing).
"""
import gzip, json, sys, time
import numpy as np
from vqf import VQF


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = [l for l in f if not l.startswith("#")]
    header = lines[0].strip().split(",")
    data = np.genfromtxt(lines[1:], delimiter=",")
    col = {name: data[:, i] for i, name in enumerate(header)}
    return col


def quat_mul(a, b):
    w1, x1, y1, z1 = a.T
    w2, x2, y2, z2 = b.T
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], axis=1)


def rmse(est, gt, counted):
    ok = counted & np.all(np.isfinite(gt), axis=1)
    conj = gt[ok] * np.array([1, -1, -1, -1])
    e = quat_mul(est[ok], conj)
    e /= np.linalg.norm(e, axis=1, keepdims=True)
    w = np.abs(e[:, 0])
    total = 2 * np.arccos(np.minimum(1, w))
    heading = 2 * np.arctan(np.abs(e[:, 3] / np.maximum(1e-12, w)))
    incl = 2 * np.arccos(np.minimum(1, np.sqrt(e[:, 0] ** 2 + e[:, 3] ** 2)))
    r = lambda a: float(np.degrees(np.sqrt(np.mean(a ** 2))))
    return r(total), r(heading), r(incl)


def errors(paths):
    sums = np.zeros(4)
    for path in paths:
        c = load(path)
        t = c["t"]
        ts = float(np.median(np.diff(t)))
        gyr = np.ascontiguousarray(np.stack([c["gyr_x"], c["gyr_y"], c["gyr_z"]], axis=1))
        acc = np.ascontiguousarray(np.stack([c["acc_x"], c["acc_y"], c["acc_z"]], axis=1))
        mag = np.ascontiguousarray(np.stack([c["mag_x"], c["mag_y"], c["mag_z"]], axis=1))
        out = VQF(ts).updateBatch(gyr, acc, mag)
        gt = np.stack([c["gt_qw"], c["gt_qx"], c["gt_qy"], c["gt_qz"]], axis=1)
        counted = c["movement"] == 1
        e9 = rmse(out["quat9D"], gt, counted)
        e6 = rmse(out["quat6D"], gt, counted)
        print(json.dumps({"trace": path.split("/")[-1], "total_9d": e9[0], "heading_9d": e9[1], "inclination_9d": e9[2],
                          "inclination_6d": e6[2]}, sort_keys=True))
        sums += [e9[0], e9[1], e9[2], e6[2]]
    m = sums / len(paths)
    print(json.dumps({"mean": {"total_9d": m[0], "heading_9d": m[1], "inclination_9d": m[2], "inclination_6d": m[3]},
                      "trials": len(paths)}, sort_keys=True))


def bench(samples):
    # The same kind of motion as `sentio motion bench`: a tumbling device at 200 Hz, with noise.
    rng = np.random.default_rng(0x5EED)
    t = np.arange(samples) / 200
    gyr = np.stack([np.sin(t * 0.7), np.cos(t * 0.3), 0.5 * np.sin(t * 1.1)], axis=1) + rng.normal(0, 0.01, (samples, 3))
    acc = np.tile([0, 0, 9.80665], (samples, 1)) + rng.normal(0, 0.01, (samples, 3))
    mag = np.tile([0, 20, -43.6], (samples, 1)) + rng.normal(0, 0.01, (samples, 3))
    gyr, acc, mag = (np.ascontiguousarray(a) for a in (gyr, acc, mag))
    VQF(0.005).updateBatch(gyr, acc, mag)  # warm-up
    times = []
    for _ in range(11):
        v = VQF(0.005)
        start = time.perf_counter()
        v.updateBatch(gyr, acc, mag)
        times.append(time.perf_counter() - start)
    median = sorted(times)[5]
    print(json.dumps({"samples_per_s": samples / median, "samples": samples, "median_ms": median * 1e3, "filter": "vqf"}, sort_keys=True))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "errors":
        errors(sys.argv[2:])
    elif len(sys.argv) >= 2 and sys.argv[1] == "bench":
        n = int(sys.argv[sys.argv.index("--samples") + 1]) if "--samples" in sys.argv else 1_000_000
        bench(n)
    else:
        sys.exit(__doc__)
