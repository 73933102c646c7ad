"""Motion traces for the arcade's browser tests, as Chromium's devicemotion would carry them.

- `broad_segment`: a BROAD trial (fixtures/imu/broad, 286 Hz, rad/s and m/s²) resampled to 60 Hz
  by linear interpolation, the way a browser samples a sensor at its own rate.
- `flicks`: the recipe of Play's ConstructedMotion (Sources/Play/ConstructedMotion.swift): a phone
  lying face up, each flick a half-sine push of `peak_g` along its top edge (+y) over 0.15 s, a
  half-sine stop of 0.6 × `peak_g` over 0.15 s, then 1.5 s at rest.
- `write_trace`: what a page sent, as the CSV that `sentio motion fuse` reads (s, rad/s, m/s²).
"""
import csv, gzip, io, math

G = 9.80665


def broad_segment(path, start_s, seconds, hz=60.0):
    with gzip.open(path, "rt") as f:
        rows = [line for line in f if not line.startswith("#")]
    reader = csv.DictReader(io.StringIO("".join(rows)))
    data = [(float(r["t"]), [float(r[k]) for k in ("gyr_x", "gyr_y", "gyr_z")], [float(r[k]) for k in ("acc_x", "acc_y", "acc_z")]) for r in reader]
    out, j, t = [], 0, start_s
    while t < start_s + seconds and j + 1 < len(data):
        while j + 1 < len(data) and data[j + 1][0] < t:
            j += 1
        (ta, ga, aa), (tb, gb, ab) = data[j], data[min(j + 1, len(data) - 1)]
        f = (t - ta) / (tb - ta) if tb > ta else 0
        out.append({"gyro": [a + (b - a) * f for a, b in zip(ga, gb)], "acc": [a + (b - a) * f for a, b in zip(aa, ab)]})
        t += 1 / hz
    return out


def flicks(count, peak_g=2.5, hz=60, tilt_deg=0.0, rest_s=1.5):
    """`count` flicks of `peak_g`, each along the phone's screen tilted `tilt_deg` from its top
    edge toward its right (+x): 0 is Play's ConstructedMotion recipe (straight up the phone)."""
    user = [0.0] * int(hz)
    n = int(0.15 * hz)
    for _ in range(count):
        user += [peak_g * math.sin(math.pi * (i + 0.5) / n) for i in range(n)]
        user += [-0.6 * peak_g * math.sin(math.pi * (i + 0.5) / n) for i in range(n)]
        user += [0.0] * int(rest_s * hz)
    across, up = math.sin(math.radians(tilt_deg)), math.cos(math.radians(tilt_deg))
    return [{"gyro": [0, 0, 0], "acc": [u * across * G, u * up * G, G]} for u in user]


def held_still(path, start_s, seconds, hz=60.0):
    """A stretch of x-io's Fusion sample (fixtures/imu/fusion_sample: a sensor held in the hand,
    ~100 Hz, °/s and g) resampled to `hz` as a browser would sample it, in the browser's units
    (°/s, m/s²) as `{"t", "gyro", "acc"}` with t in ms."""
    with open(path) as f:
        rows = [[float(v) for v in line.split(",")[:7]] for line in list(f)[1:]]
    out, j, t = [], 0, start_s
    while t < start_s + seconds and j + 1 < len(rows):
        while j + 1 < len(rows) and rows[j + 1][0] < t:
            j += 1
        a, b = rows[j], rows[min(j + 1, len(rows) - 1)]
        f = (t - a[0]) / (b[0] - a[0]) if b[0] > a[0] else 0
        v = [x + (y - x) * f for x, y in zip(a, b)]
        out.append({"t": (t - start_s) * 1000, "gyro": v[1:4], "acc": [g * G for g in v[4:7]]})
        t += 1 / hz
    return out


def rest(seconds, hz=60):
    return [{"gyro": [0, 0, 0], "acc": [0, 0, G]} for _ in range(int(seconds * hz))]


def write_trace(samples, path, max_step=0.25, nominal_step=1 / 60):
    """Samples as the page sent them (t ms, m/s², °/s) → the trace format (s, rad/s, m/s²), with
    the server's time base: a step over `max_step` closed up to `nominal_step`, as Play's
    MotionNormalizer does (its constants), so the times are those the server fused at."""
    shift, last = 0.0, None
    with open(path, "w") as f:
        f.write("t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n")
        for s in samples:
            a, r = s["accelerationIncludingGravity"], s["rotationRate"]
            t = s["t"] / 1000
            if last is not None and abs(t - last) > max_step:
                shift += t - last - nominal_step
            last = t
            d = math.pi / 180
            f.write(",".join(repr(v) for v in (t - shift, r["alpha"] * d, r["beta"] * d, r["gamma"] * d, a["x"], a["y"], a["z"])) + "\n")


def read_fused(path):
    """`sentio motion fuse --out` rows: t and the quaternion [w, x, y, z]."""
    with open(path) as f:
        return [(float(r["t"]), [float(r[k]) for k in ("qw", "qx", "qy", "qz")]) for r in csv.DictReader(f)]


def multiply(a, b):
    aw, ax, ay, az = a; bw, bx, by, bz = b
    return [aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw]


def relative(q, reference):
    w, x, y, z = reference
    return multiply([w, -x, -y, -z], q)


def angle_deg(a, b):
    dot = abs(sum(p * q for p, q in zip(a, b))) / (math.sqrt(sum(p * p for p in a)) * math.sqrt(sum(q * q for q in b)))
    return math.degrees(2 * math.acos(min(1.0, dot)))


def euler(q):
    """Core Motion's pitch and roll (radians), as SentioMotion's Attitude computes them."""
    w, x, y, z = q
    return math.asin(max(-1, min(1, 2 * (w * x + y * z)))), math.atan2(2 * (w * y - x * z), 1 - 2 * (x * x + y * y))
