// The arcade's games as small simulations, stepped by the page and drawn on a 2-D canvas. They
// keep the original games' ideas (the Core Motion games of the diploma thesis) — the plane's
// velocity = velocity · drag + angle · factor, the basketball thrown by the flick's user
// acceleration in x and y — tuned for a phone held in the hand (docs/play.md, "The arcade's
// games"): a dead zone and time-based steps for the plane, a throw whose direction is the
// flick's and whose strength is its peak, and a hoop that forgives a near-right strength.

/** A seeded generator (mulberry32), so a game's obstacles are the same on every run. */
function seeded(seed) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The players' colours, in the order they join (contrast ≥ 3:1 on both skies). */
export const PLAYERS = [
  { name: "Blue", colour: "#4f46e5" }, { name: "Red", colour: "#d92d3a" },
  { name: "Green", colour: "#0f8a5f" }, { name: "Orange", colour: "#c2570c" },
];

/** The plane's nominal sample period (s): drag and factor are per step of this length, as in the original. */
const STEP = 1 / 60;

/**
 * One tilt-steered plane on a field of unit width and height (y down). `steer` takes each
 * attitude sample; a tilt inside the dead zone is level flight, so a hand's tremor and a grip
 * that is not quite level fly straight. Per 1/60 s: velocity = velocity · drag + (angle beyond
 * the dead zone) · factor — the original rule, made independent of the phone's sample rate.
 */
export class Plane {
  static defaults = { drag: 0.9, factor: 0.003, deadZone: (5 * Math.PI) / 180 };

  constructor({ drag = Plane.defaults.drag, factor = Plane.defaults.factor, deadZone = Plane.defaults.deadZone, colour = PLAYERS[0].colour, x = 0.5 } = {}) {
    Object.assign(this, { drag, factor, deadZone, colour });
    this.x = x; this.y = 0.7; this.vx = 0; this.vy = 0;
    this.rings = 0; this.clouds = 0; this.path = []; this.flash = -Infinity;
  }

  /** An angle (radians) with the dead zone taken off: 0 inside it, continuous at its edge. */
  shaped(angle) { return Math.sign(angle) * Math.max(0, Math.abs(angle) - this.deadZone); }

  /** One sample: pitch steers across (x), roll along (y), radians relative to the reference; dt in s. */
  steer(pitch, roll, dt) {
    const steps = Math.min(Math.max(dt, 0), 0.25) / STEP, keep = this.drag ** steps;
    this.vx = this.vx * keep + this.shaped(pitch) * this.factor * steps;
    this.vy = this.vy * keep + this.shaped(roll) * this.factor * steps;
    this.x += this.vx * steps; this.y += this.vy * steps;
    // The field's edges stop the plane (and its velocity across them).
    if (this.x < 0.05 || this.x > 0.95) { this.x = Math.min(0.95, Math.max(0.05, this.x)); this.vx = 0; }
    if (this.y < 0.05 || this.y > 0.95) { this.y = Math.min(0.95, Math.max(0.05, this.y)); this.vy = 0; }
    this.path.push([this.x, this.y]);
    if (this.path.length > 240) this.path.shift();
  }

  /** True while the plane touches an edge of the field. */
  get atEdge() { return this.x <= 0.0501 || this.x >= 0.9499 || this.y <= 0.0501 || this.y >= 0.9499; }

  draw(ctx, w, h, time, faded) {
    const s = Math.min(w, h), p = s * 0.045, hit = time - this.flash < 0.4;
    ctx.globalAlpha = faded ? 0.35 : 1;
    ctx.strokeStyle = this.colour + "55"; ctx.lineWidth = 2; ctx.beginPath();
    this.path.slice(-120).forEach(([x, y], i) => (i ? ctx.lineTo(x * w, y * h) : ctx.moveTo(x * w, y * h))); ctx.stroke();
    ctx.save(); ctx.translate(this.x * w, this.y * h); ctx.rotate(Math.atan2(this.vx, -this.vy - 0.002) * 0.5);
    ctx.fillStyle = hit ? "#7a7f99" : this.colour; ctx.strokeStyle = "#fff"; ctx.lineWidth = Math.max(1.5, s * 0.004); ctx.beginPath();
    ctx.moveTo(0, -p); ctx.lineTo(p * 0.25, -p * 0.2); ctx.lineTo(p, p * 0.2); ctx.lineTo(p * 0.25, p * 0.15); ctx.lineTo(p * 0.2, p * 0.7);
    ctx.lineTo(p * 0.45, p); ctx.lineTo(-p * 0.45, p); ctx.lineTo(-p * 0.2, p * 0.7); ctx.lineTo(-p * 0.25, p * 0.15);
    ctx.lineTo(-p, p * 0.2); ctx.lineTo(-p * 0.25, -p * 0.2); ctx.closePath(); ctx.fill(); ctx.stroke(); ctx.restore();
    ctx.globalAlpha = 1;
  }
}

/**
 * The plane game's sky: rings to fly through and storm clouds to avoid, drifting down the
 * field, shared by every player's plane. Stepped by the page's frames while the game runs.
 */
export class Sky {
  constructor({ seed = 26 } = {}) {
    this.time = 0; this.nextSpawn = 1; this.obstacles = []; this.random = seeded(seed);
  }

  /** Moves the sky on by `dt` seconds; returns what the planes met: [{ plane, kind }]. */
  advance(dt, planes) {
    const met = [];
    this.time += Math.min(Math.max(dt, 0), 0.1);
    if (this.time >= this.nextSpawn) {
      this.nextSpawn = this.time + 0.9 + this.random() * 0.6;
      this.obstacles.push({ kind: this.random() < 0.6 ? "ring" : "cloud", x: 0.1 + this.random() * 0.8, y: -0.08, takenBy: new Set() });
    }
    for (const o of this.obstacles) {
      o.y += 0.22 * Math.min(Math.max(dt, 0), 0.1);
      for (const plane of planes) {
        if (o.takenBy.has(plane) || Math.hypot(o.x - plane.x, o.y - plane.y) >= 0.07) continue;
        o.takenBy.add(plane);
        if (o.kind === "ring") plane.rings += 1; else { plane.clouds += 1; plane.flash = this.time; }
        met.push({ plane, kind: o.kind });
      }
    }
    this.obstacles = this.obstacles.filter((o) => o.y < 1.1);
    return met;
  }

  draw(ctx, w, h, dark) {
    ctx.fillStyle = dark ? "#101a33" : "#cfe8ff"; ctx.fillRect(0, 0, w, h);
    const s = Math.min(w, h);
    for (const o of this.obstacles) {
      const done = o.takenBy.size > 0;
      if (o.kind === "ring") {
        ctx.strokeStyle = done ? "rgba(255,210,80,.35)" : "#e0a000"; ctx.lineWidth = s * 0.012;
        ctx.beginPath(); ctx.ellipse(o.x * w, o.y * h, s * 0.06, s * 0.035, 0, 0, 2 * Math.PI); ctx.stroke();
      } else {
        ctx.fillStyle = done ? "rgba(90,90,110,.35)" : "#5b5f78";
        for (const [dx, dy, r] of [[-0.03, 0, 0.035], [0.02, -0.01, 0.04], [0.05, 0.01, 0.03]]) {
          ctx.beginPath(); ctx.arc((o.x + dx) * w, (o.y + dy) * h, r * s, 0, 2 * Math.PI); ctx.fill();
        }
      }
    }
  }
}

/**
 * Basketball in metres (y up): a hoop at 3.05 m with a rim and a board to bounce from; one
 * ball per player. A flick throws toward where it went: its peak user acceleration (fx, fy) in
 * g, across and up the phone's screen, gives the launch angle (straight up the phone: straight
 * up; tilted toward the hoop by θ: 90° − 0.7·θ above the ground) and the speed (`speedPerG` m/s
 * per g of its size). A straight-up flick cannot reach the hoop; one tilted 6°–46° toward it can.
 *
 * Aim assist: for the throw's angle there is one speed that drops the ball through the middle
 * of the hoop; a throw within `window` of it (as a fraction) is brought into the clean band
 * around it, so a flick of about the right strength scores and a clearly soft or hard one
 * misses by what it missed by beyond the window (the mapping is continuous at its edges).
 */
export class Basketball {
  static gravity = [0, -20];
  static start = [1.0, 1.3];
  static ballRadius = 0.12;
  static rim = { front: [3.9, 3.05], back: [4.36, 3.05], radius: 0.02 };
  static board = { x: 4.5, bottom: 2.85, top: 4.0 };
  static width = 5.2; static height = 5.0;
  /** Where the ideal throw passes at rim height: the hoop's middle. */
  static target = [(3.9 + 4.36) / 2, 3.05];
  /** Launch angles (degrees) the aim assist helps: from 58° up a ball at the right speed drops
   *  in cleanly; flatter ones meet the front rim (measured by a scan of angles and speeds). */
  static assisted = [58, 86];
  /** Launch-angle degrees per degree of the flick's tilt toward the hoop. */
  static tiltGain = 0.7;
  /** Where inside the window an assisted throw lands, as a fraction of the ideal speed: the
   *  scan's clean band is −1.5 % … +2 % of it at most angles, with rim bounces either side. */
  static assist = { centre: 0.005, keep: 0.02 };

  constructor({ speedPerG = 4.5, window = 0.2, colour = PLAYERS[0].colour } = {}) {
    Object.assign(this, { speedPerG, window, colour });
    this.throws = 0; this.baskets = 0; this.lastShot = null;
    this.reset();
  }

  reset() { [this.x, this.y] = Basketball.start; this.vx = 0; this.vy = 0; this.flying = false; this.scored = false; this.floored = false; this.judged = false; this.trail = []; this.restingFor = 0; }

  /** The speed (m/s) that takes a ball launched at `angle` (degrees) from the start through the hoop's middle, or null. */
  static idealSpeed(angle) {
    const a = (angle * Math.PI) / 180, [x0, y0] = Basketball.start, [xt, yt] = Basketball.target, g = -Basketball.gravity[1];
    const dx = xt - x0, dy = yt - y0, c = Math.cos(a), rise = dx * Math.tan(a) - dy;
    if (!(c > 1e-6) || !(rise > 0)) return null;
    return Math.sqrt((g * dx * dx) / (2 * c * c * rise));
  }

  /** The throw a flick (fx, fy) in g makes: { angle (deg), speed, ideal, vx, vy }, or null for a flick that does not go up. */
  aim(fx, fy) {
    if (!(fy > 0) || !Number.isFinite(fx)) return null;
    const angle = 90 - (Basketball.tiltGain * Math.atan2(fx, fy) * 180) / Math.PI;
    let speed = Math.hypot(fx, fy) * this.speedPerG;
    const ideal = angle >= Basketball.assisted[0] && angle <= Basketball.assisted[1] ? Basketball.idealSpeed(angle) : null;
    if (ideal) {
      const e = speed / ideal - 1, w = this.window, { centre, keep } = Basketball.assist;
      speed = ideal * (1 + centre + (Math.abs(e) <= w ? keep * e : Math.sign(e) * keep * w + e - Math.sign(e) * w));
    }
    const a = (angle * Math.PI) / 180;
    return { angle, speed, ideal, vx: speed * Math.cos(a), vy: speed * Math.sin(a) };
  }

  /** Throws with the flick (fx, fy) in g; false when the flick does not go up (no throw). */
  throwFlick(fx, fy) {
    const shot = this.aim(fx, fy);
    if (!shot) return false;
    this.reset();
    this.vx = shot.vx; this.vy = shot.vy; this.flying = true; this.throws += 1;
    this.shot = { ...shot, flick: [fx, fy] };
    return true;
  }

  /** What to tell the player about the throw just ended. */
  verdict() {
    const shot = this.shot;
    if (this.scored) return { result: "basket", hint: "Basket!" };
    if (shot.angle > 90) return { result: "miss", hint: "Wrong way: flick toward the hoop" };
    if (shot.angle > Basketball.assisted[1]) return { result: "miss", hint: "Too steep: flick up and a little toward the hoop" };
    if (shot.angle < Basketball.assisted[0]) return { result: "miss", hint: "Too flat: flick more upward" };
    const strength = Math.hypot(...shot.flick) * this.speedPerG / shot.ideal;
    if (strength < 1) return { result: "miss", hint: "Short: flick harder" };
    return { result: "miss", hint: "Long: flick softer" };
  }

  /** Moves the ball on by `dt` s; returns the verdict when a throw has just ended, else null. */
  step(dt) {
    if (!this.flying) {
      // A ball that has come to rest goes back to the player's hand after a second.
      this.restingFor += dt;
      if (this.restingFor > 1 && this.trail.length) this.reset();
      return null;
    }
    const n = Math.max(1, Math.ceil(dt / 0.004)), h = dt / n;
    for (let i = 0; i < n && this.flying; i++) this.substep(h);
    this.trail.push([this.x, this.y]); if (this.trail.length > 90) this.trail.shift();
    // The throw is judged as soon as its outcome is known: through the hoop, or down on the
    // floor (or off the court) without it; the ball bounces on for the eye.
    if (this.judged || !(this.scored || this.floored || !this.flying)) return null;
    this.judged = true;
    this.lastShot = this.verdict();
    return this.lastShot;
  }

  substep(h) {
    const r = Basketball.ballRadius, { rim, board } = Basketball, wasAbove = this.y > rim.front[1];
    this.vx += Basketball.gravity[0] * h; this.vy += Basketball.gravity[1] * h;
    this.x += this.vx * h; this.y += this.vy * h;
    // The rim's two edges are small circles; the board a vertical segment; the floor at 0.
    for (const c of [rim.front, rim.back]) this.bounceCircle(c, rim.radius + r, 0.55);
    if (this.y > board.bottom && this.y < board.top && Math.abs(this.x - board.x) < r && this.vx > 0) { this.x = board.x - r; this.vx *= -0.6; }
    if (this.y < r) { this.floored = true; this.y = r; this.vy *= -0.5; this.vx *= 0.8; if (Math.abs(this.vy) < 0.5) this.flying = false; }
    if (this.x < -1 || this.x > Basketball.width + 1) this.flying = false;
    if (!this.scored && wasAbove && this.y <= rim.front[1] && this.vy < 0 && this.x > rim.front[0] && this.x < rim.back[0]) {
      this.scored = true; this.baskets += 1;
    }
  }

  bounceCircle([cx, cy], distance, restitution) {
    const dx = this.x - cx, dy = this.y - cy, d = Math.hypot(dx, dy);
    if (d >= distance || d === 0) return;
    const nx = dx / d, ny = dy / d, vn = this.vx * nx + this.vy * ny;
    this.x = cx + nx * distance; this.y = cy + ny * distance;
    if (vn < 0) { this.vx -= (1 + restitution) * vn * nx; this.vy -= (1 + restitution) * vn * ny; }
  }

  /** The court's scale and origin on a canvas of w × h (a strip of floor, 0.3 m, below). */
  static frame(w, h) {
    const s = Math.min(w / Basketball.width, h / (Basketball.height + 0.3)), ox = (w - Basketball.width * s) / 2;
    return { s, X: (x) => ox + x * s, Y: (y) => h - (y + 0.3) * s };
  }

  /** The court, the hoop and the aim hint: the path of a good throw (60°) and the angles that can score. */
  static drawCourt(ctx, w, h, dark) {
    const { s, X, Y } = Basketball.frame(w, h), { rim, board, start } = Basketball;
    ctx.fillStyle = dark ? "#1b1420" : "#fff4e8"; ctx.fillRect(0, 0, w, h);
    ctx.fillStyle = dark ? "#3a2a1f" : "#e8c9a0"; ctx.fillRect(0, Y(0), w, h - Y(0) + 1);
    ctx.strokeStyle = dark ? "#ddd" : "#555"; ctx.lineWidth = Math.max(3, s * 0.05);
    ctx.beginPath(); ctx.moveTo(X(board.x), Y(board.bottom)); ctx.lineTo(X(board.x), Y(board.top)); ctx.stroke();
    ctx.lineWidth = Math.max(2, s * 0.02); ctx.beginPath(); ctx.moveTo(X(board.x + 0.05), Y(board.bottom)); ctx.lineTo(X(board.x + 0.05), Y(0)); ctx.stroke();
    ctx.strokeStyle = "#e5484d"; ctx.lineWidth = Math.max(3, s * 0.04);
    ctx.beginPath(); ctx.moveTo(X(rim.front[0]), Y(rim.front[1])); ctx.lineTo(X(board.x), Y(rim.back[1])); ctx.stroke();
    ctx.strokeStyle = dark ? "rgba(255,255,255,.5)" : "rgba(0,0,0,.35)"; ctx.lineWidth = 1;
    for (let i = 0; i <= 4; i++) {
      ctx.beginPath(); ctx.moveTo(X(rim.front[0] + (i / 4) * (rim.back[0] - rim.front[0])), Y(rim.front[1]));
      ctx.lineTo(X(rim.front[0] + 0.1 + (i / 4) * (rim.back[0] - rim.front[0] - 0.2)), Y(rim.front[1] - 0.4)); ctx.stroke();
    }
    // The aim hint: a wedge over the angles that can score, and the dotted path of a 60° throw.
    const [lo, hi] = Basketball.assisted.map((d) => (d * Math.PI) / 180), r = 1.2 * s;
    ctx.fillStyle = dark ? "rgba(99,230,190,.16)" : "rgba(15,138,95,.14)";
    ctx.beginPath(); ctx.moveTo(X(start[0]), Y(start[1])); ctx.arc(X(start[0]), Y(start[1]), r, -hi, -lo); ctx.closePath(); ctx.fill();
    const v = Basketball.idealSpeed(60), a = Math.PI / 3, g = -Basketball.gravity[1];
    ctx.fillStyle = dark ? "rgba(255,255,255,.55)" : "rgba(23,25,43,.45)";
    for (let t = 0.04; t < 2; t += 0.04) {
      const x = start[0] + v * Math.cos(a) * t, y = start[1] + v * Math.sin(a) * t - (g * t * t) / 2;
      if (y < Basketball.rim.front[1] && x > Basketball.target[0]) break;
      ctx.beginPath(); ctx.arc(X(x), Y(y), Math.max(1.5, s * 0.018), 0, 2 * Math.PI); ctx.fill();
    }
  }

  /** This player's ball and the trail of its last throw. */
  draw(ctx, w, h, faded) {
    const { s, X, Y } = Basketball.frame(w, h);
    ctx.globalAlpha = faded ? 0.35 : 1;
    ctx.strokeStyle = this.colour + "66"; ctx.lineWidth = 2; ctx.beginPath();
    this.trail.forEach(([x, y], i) => (i ? ctx.lineTo(X(x), Y(y)) : ctx.moveTo(X(x), Y(y)))); ctx.stroke();
    ctx.fillStyle = "#e8782a"; ctx.beginPath(); ctx.arc(X(this.x), Y(this.y), Basketball.ballRadius * s, 0, 2 * Math.PI); ctx.fill();
    ctx.strokeStyle = this.colour; ctx.lineWidth = Math.max(2, s * 0.03); ctx.stroke();
    ctx.globalAlpha = 1;
  }
}
