// The arcade's games as small simulations, stepped by the page and drawn on a 2-D canvas. They
// keep the original games' rules (the Core Motion games of the diploma thesis): the plane's
// velocity = velocity · drag + angle · factor (pitch → x, roll → y); the basketball's throw, a
// force of 80·ax·m and 60·ay·m, and gravity (0, −20).

/** A seeded generator (mulberry32), so a game's obstacles are the same on every run. */
function seeded(seed) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Tilt-steered plane on a field of unit width and height (y down). One step per sample. */
export class Plane {
  constructor({ drag = 0.9, factor = 0.004, seed = 26 } = {}) {
    this.drag = drag; this.factor = factor;
    this.x = 0.5; this.y = 0.7; this.vx = 0; this.vy = 0;
    this.score = 0; this.hits = 0; this.time = 0; this.nextSpawn = 1;
    this.obstacles = []; this.path = []; this.random = seeded(seed);
  }

  /** One sample: angles in radians (relative to the reference), dt in seconds of sample time. */
  step(pitch, roll, dt) {
    this.vx = this.vx * this.drag + pitch * this.factor;
    this.vy = this.vy * this.drag + roll * this.factor;
    this.x += this.vx; this.y += this.vy;
    // The field's edges stop the plane (and its velocity across them).
    if (this.x < 0.05 || this.x > 0.95) { this.x = Math.min(0.95, Math.max(0.05, this.x)); this.vx = 0; }
    if (this.y < 0.05 || this.y > 0.95) { this.y = Math.min(0.95, Math.max(0.05, this.y)); this.vy = 0; }
    this.path.push([this.x, this.y]);
    if (this.path.length > 4000) this.path.shift();
    this.advanceObstacles(Math.min(Math.max(dt, 0), 0.1));
  }

  /** Rings to fly through (+1) and storm clouds to avoid (−1), drifting down the field. */
  advanceObstacles(dt) {
    this.time += dt;
    if (this.time >= this.nextSpawn) {
      this.nextSpawn = this.time + 0.9 + this.random() * 0.6;
      this.obstacles.push({ kind: this.random() < 0.6 ? "ring" : "cloud", x: 0.1 + this.random() * 0.8, y: -0.08, done: false });
    }
    for (const o of this.obstacles) {
      o.y += 0.22 * dt;
      if (!o.done && Math.hypot(o.x - this.x, o.y - this.y) < 0.07) {
        o.done = true;
        if (o.kind === "ring") this.score += 1; else { this.score -= 1; this.hits += 1; this.flash = this.time; }
      }
    }
    this.obstacles = this.obstacles.filter((o) => o.y < 1.1);
  }

  draw(ctx, w, h, dark) {
    ctx.fillStyle = dark ? "#101a33" : "#cfe8ff"; ctx.fillRect(0, 0, w, h);
    const s = Math.min(w, h);
    for (const o of this.obstacles) {
      if (o.kind === "ring") {
        ctx.strokeStyle = o.done ? "rgba(255,210,80,.35)" : "#ffc23d"; ctx.lineWidth = s * 0.012;
        ctx.beginPath(); ctx.ellipse(o.x * w, o.y * h, s * 0.06, s * 0.035, 0, 0, 2 * Math.PI); ctx.stroke();
      } else {
        ctx.fillStyle = o.done ? "rgba(90,90,110,.35)" : "#5b5f78";
        for (const [dx, dy, r] of [[-0.03, 0, 0.035], [0.02, -0.01, 0.04], [0.05, 0.01, 0.03]]) {
          ctx.beginPath(); ctx.arc((o.x + dx) * w, (o.y + dy) * h, r * s, 0, 2 * Math.PI); ctx.fill();
        }
      }
    }
    ctx.strokeStyle = "rgba(79,70,229,.35)"; ctx.lineWidth = 2; ctx.beginPath();
    this.path.slice(-120).forEach(([x, y], i) => (i ? ctx.lineTo(x * w, y * h) : ctx.moveTo(x * w, y * h))); ctx.stroke();
    const hit = this.flash !== undefined && this.time - this.flash < 0.4;
    ctx.save(); ctx.translate(this.x * w, this.y * h); ctx.rotate(Math.atan2(this.vx, -this.vy - 0.002) * 0.5);
    ctx.fillStyle = hit ? "#e5484d" : "#4f46e5"; ctx.beginPath();
    const p = s * 0.045;
    ctx.moveTo(0, -p); ctx.lineTo(p * 0.25, -p * 0.2); ctx.lineTo(p, p * 0.2); ctx.lineTo(p * 0.25, p * 0.15); ctx.lineTo(p * 0.2, p * 0.7);
    ctx.lineTo(p * 0.45, p); ctx.lineTo(-p * 0.45, p); ctx.lineTo(-p * 0.2, p * 0.7); ctx.lineTo(-p * 0.25, p * 0.15);
    ctx.lineTo(-p, p * 0.2); ctx.lineTo(-p * 0.25, -p * 0.2); ctx.closePath(); ctx.fill(); ctx.restore();
  }
}

/** Basketball in metres (y up): a hoop at 3.05 m with a rim and a board to bounce from. */
export class Basketball {
  static gravity = [0, -20];
  static start = [1.0, 1.3];
  static ballRadius = 0.12;
  static rim = { front: [3.9, 3.05], back: [4.36, 3.05], radius: 0.02 };
  static board = { x: 4.5, bottom: 2.85, top: 4.0 };
  static width = 5.2; static height = 5.0;

  /** `push`: how long the flick's force acts (s), so a force of 80·ax·m gives a speed of 80·ax·push. */
  constructor({ push = 0.1 } = {}) {
    this.push = push; this.throws = 0; this.baskets = 0;
    this.reset();
  }

  reset() { [this.x, this.y] = Basketball.start; this.vx = 0; this.vy = 0; this.flying = false; this.scored = false; this.trail = []; }

  /** A flick with user acceleration (ax, ay) in g: the original force 80·ax·m, 60·ay·m. */
  throwBall(ax, ay) {
    this.reset();
    this.vx = 80 * ax * this.push; this.vy = 60 * ay * this.push;
    this.flying = true; this.throws += 1;
  }

  step(dt) {
    if (!this.flying) {
      // A ball that has come to rest goes back to the player's hand after a second.
      this.restingFor = (this.restingFor || 0) + dt;
      if (this.restingFor > 1 && this.trail.length) this.reset();
      return;
    }
    this.restingFor = 0;
    const n = Math.max(1, Math.ceil(dt / 0.004)), h = dt / n;
    for (let i = 0; i < n; i++) this.substep(h);
    this.trail.push([this.x, this.y]); if (this.trail.length > 90) this.trail.shift();
  }

  substep(h) {
    const r = Basketball.ballRadius, { rim, board } = Basketball, wasAbove = this.y > rim.front[1];
    this.vx += Basketball.gravity[0] * h; this.vy += Basketball.gravity[1] * h;
    this.x += this.vx * h; this.y += this.vy * h;
    // The rim's two edges are small circles; the board a vertical segment; the floor at 0.
    for (const c of [rim.front, rim.back]) this.bounceCircle(c, rim.radius + r, 0.55);
    if (this.y > board.bottom && this.y < board.top && Math.abs(this.x - board.x) < r && this.vx > 0) { this.x = board.x - r; this.vx *= -0.6; }
    if (this.y < r) { this.y = r; this.vy *= -0.5; this.vx *= 0.8; if (Math.abs(this.vy) < 0.5) this.flying = false; }
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

  draw(ctx, w, h, dark) {
    // The court with a strip of floor (0.3 m) below it.
    const s = Math.min(w / Basketball.width, h / (Basketball.height + 0.3)), ox = (w - Basketball.width * s) / 2;
    const X = (x) => ox + x * s, Y = (y) => h - (y + 0.3) * s;
    ctx.fillStyle = dark ? "#1b1420" : "#fff4e8"; ctx.fillRect(0, 0, w, h);
    ctx.fillStyle = dark ? "#3a2a1f" : "#e8c9a0"; ctx.fillRect(0, Y(0), w, h - Y(0) + 1);
    const { rim, board } = Basketball;
    ctx.strokeStyle = dark ? "#ddd" : "#555"; ctx.lineWidth = Math.max(3, s * 0.05);
    ctx.beginPath(); ctx.moveTo(X(board.x), Y(board.bottom)); ctx.lineTo(X(board.x), Y(board.top)); ctx.stroke();
    ctx.lineWidth = Math.max(2, s * 0.02); ctx.beginPath(); ctx.moveTo(X(board.x + 0.05), Y(board.bottom)); ctx.lineTo(X(board.x + 0.05), 0 + Y(0)); ctx.stroke();
    ctx.strokeStyle = "#e5484d"; ctx.lineWidth = Math.max(3, s * 0.04);
    ctx.beginPath(); ctx.moveTo(X(rim.front[0]), Y(rim.front[1])); ctx.lineTo(X(board.x), Y(rim.back[1])); ctx.stroke();
    ctx.strokeStyle = dark ? "rgba(255,255,255,.5)" : "rgba(0,0,0,.35)"; ctx.lineWidth = 1;
    for (let i = 0; i <= 4; i++) {
      ctx.beginPath(); ctx.moveTo(X(rim.front[0] + (i / 4) * (rim.back[0] - rim.front[0])), Y(rim.front[1]));
      ctx.lineTo(X(rim.front[0] + 0.1 + (i / 4) * (rim.back[0] - rim.front[0] - 0.2)), Y(rim.front[1] - 0.4)); ctx.stroke();
    }
    ctx.strokeStyle = "rgba(232,120,40,.35)"; ctx.lineWidth = 2; ctx.beginPath();
    this.trail.forEach(([x, y], i) => (i ? ctx.lineTo(X(x), Y(y)) : ctx.moveTo(X(x), Y(y)))); ctx.stroke();
    ctx.fillStyle = "#e8782a"; ctx.beginPath(); ctx.arc(X(this.x), Y(this.y), Basketball.ballRadius * s, 0, 2 * Math.PI); ctx.fill();
    ctx.strokeStyle = "#5a2a0a"; ctx.lineWidth = 1.5; ctx.stroke();
  }
}
