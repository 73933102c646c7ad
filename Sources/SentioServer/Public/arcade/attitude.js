// Quaternions [w, x, y, z] as the server sends them (device → East-North-Up), and Core Motion's
// Euler angles: R = Rz(yaw)·Rx(pitch)·Ry(roll), the same formulas as SentioMotion's Attitude.

export const identity = [1, 0, 0, 0];

export function multiply(a, b) {
  const [aw, ax, ay, az] = a, [bw, bx, by, bz] = b;
  return [aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
          aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw];
}

export const conjugate = ([w, x, y, z]) => [w, -x, -y, -z];

export function normalize(q) {
  const n = Math.hypot(...q) || 1;
  return q.map((v) => v / n);
}

/** The attitude relative to a reference, in the reference device's frame (Core Motion's
 *  `multiply(byInverseOf:)`): identity when the phone is held as it was at the reference. */
export const relative = (q, reference) => normalize(multiply(conjugate(reference), q));

/** Roll, pitch, yaw in radians (Core Motion's definitions). */
export function euler([w, x, y, z]) {
  return {
    pitch: Math.asin(Math.max(-1, Math.min(1, 2 * (w * x + y * z)))),
    roll: Math.atan2(2 * (w * y - x * z), 1 - 2 * (x * x + y * y)),
    yaw: Math.atan2(2 * (w * z - x * y), 1 - 2 * (x * x + z * z)),
  };
}

/** The attitude `dt` seconds on, turning at `rate` (rad/s, device frame): the desktop's
 *  extrapolation between samples. */
export function advance(q, rate, dt) {
  const [rx, ry, rz] = rate, angle = Math.hypot(rx, ry, rz) * dt;
  if (!(angle > 1e-9)) return q;
  const s = Math.sin(angle / 2) / (angle / dt);
  return normalize(multiply(q, [Math.cos(angle / 2), rx * s, ry * s, rz * s]));
}

/** The angle between two attitudes, in degrees. */
export function angleBetween(a, b) {
  const dot = Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
  return (2 * Math.acos(Math.min(1, dot)) * 180) / Math.PI;
}

export const degrees = (radians) => (radians * 180) / Math.PI;
