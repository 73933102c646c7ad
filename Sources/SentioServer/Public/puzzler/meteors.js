// The meteor shower on the map: a round from the server (its seed and spawn interval), one
// meteor per `spawnSeconds` falling across the sky, a tap or click near its head catches it.
// Rounds of about a minute follow one another; each is banked with POST /meteors/{round}
// (the server credits at most one meteor per spawn interval of the round's time).
import { startMeteors, finishMeteors } from "/puzzler/api.js";
import { seeded } from "/puzzler/sky.js";

/** Meteors per round before it is banked and the next begins. */
const ROUND_METEORS = 24;

export class MeteorShower {
  constructor(host, { onPoints, onStatus, onEnd }) {
    this.host = host;
    this.onPoints = onPoints;
    this.onStatus = onStatus;
    this.onEnd = onEnd;
    this.running = false;
    // For the browser tests.
    this.stats = { rounds: 0, caught: 0, credited: 0, spawned: 0, missed: 0 };
  }

  async start() {
    if (this.running) return;
    this.running = true;
    this.build();
    // On a phone the button is below the map: bring the sky into view.
    const box = this.host.getBoundingClientRect();
    if (box.top < 0 || box.bottom > innerHeight) this.host.scrollIntoView({ block: "center", behavior: "smooth" });
    this.banner("Meteors incoming…");
    this.onStatus("Tap or click the meteors as they fall.");
    await this.newRound();
    this.last = performance.now();
    this.frame = requestAnimationFrame((t) => this.tick(t));
  }

  build() {
    const layer = document.createElement("div");
    layer.className = "pz-meteors";
    layer.innerHTML = `<canvas aria-label="Meteor shower: tap the meteors"></canvas>
      <div class="hud" aria-live="off"><span class="pz-caught">Caught 0</span><span class="pz-round"></span></div>
      <p class="pz-banner"></p>
      <button type="button" class="primary pz-stop">Stop · bank my points</button>`;
    layer.addEventListener("click", (event) => event.stopPropagation());
    this.host.append(layer);
    this.layer = layer;
    this.canvas = layer.querySelector("canvas");
    this.canvas.addEventListener("pointerdown", (event) => this.tap(event));
    layer.querySelector(".pz-stop").addEventListener("click", () => this.stop());
    this.meteors = [];
    this.sparks = [];
    this.caughtTotal = 0;
  }

  banner(text, ms = 0) {
    const b = this.layer?.querySelector(".pz-banner");
    if (!b) return;
    b.textContent = text;
    clearTimeout(this.bannerTimer);
    if (ms) this.bannerTimer = setTimeout(() => { b.textContent = ""; }, ms);
  }

  async newRound() {
    try {
      const round = await startMeteors();
      this.round = { id: round.round, spawn: Math.max(0.3, Number(round.spawnSeconds) || 2.5), random: seeded(Number(round.seed) || 1),
                     started: performance.now(), spawned: 0, caught: 0 };
      this.stats.rounds += 1;
      this.layer.querySelector(".pz-round").textContent = "";
      return true;
    } catch (error) {
      this.round = null;
      this.banner(`No shower now: ${error.message}`);
      this.onStatus(`The meteor shower could not start: ${error.message}`, "bad");
      return false;
    }
  }

  /** Banks the current round; true when it was credited. */
  async bank() {
    const round = this.round;
    this.round = null;
    if (!round || round.caught === 0) return true;
    try {
      const answer = await finishMeteors(round.id, round.caught);
      this.stats.credited += answer.credited;
      this.onPoints(answer.points);
      const short = answer.credited < round.caught ? ` (${answer.credited} of ${round.caught} credited)` : "";
      this.onStatus(`Banked ${answer.credited} point${answer.credited === 1 ? "" : "s"}${short}. You have ${answer.points}.`, "ok");
      return true;
    } catch (error) {
      this.onStatus(`Could not bank the round: ${error.message}`, "bad");
      return false;
    }
  }

  async stop() {
    if (!this.running) return;
    this.running = false;
    cancelAnimationFrame(this.frame);
    this.layer.querySelector(".pz-stop").disabled = true;
    this.banner("Banking…");
    await this.bank();
    this.layer.remove();
    this.layer = null;
    this.onEnd();
  }

  tick(now) {
    if (!this.running) return;
    const dt = Math.min(0.05, (now - this.last) / 1000);
    this.last = now;
    const canvas = this.canvas, ratio = window.devicePixelRatio || 1;
    const w = Math.round(canvas.clientWidth * ratio), h = Math.round(canvas.clientHeight * ratio);
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    const round = this.round;
    if (round) {
      const elapsed = (now - round.started) / 1000;
      // Meteor k falls at k spawn intervals: never more than the server allows for the time.
      while (round.spawned < ROUND_METEORS && elapsed >= (round.spawned + 1) * round.spawn) this.spawn(round, w, h, ratio);
      this.layer.querySelector(".pz-round").textContent = `Round ${this.stats.rounds} · ${ROUND_METEORS - round.spawned} to come`;
      if (round.spawned >= ROUND_METEORS && this.meteors.length === 0 && !this.banking) {
        this.banking = true;
        this.banner("Banking this round…");
        this.bank().then(async (ok) => {
          this.banking = false;
          if (!this.running) return;
          if (ok && await this.newRound()) this.banner("Next round!", 1200);
        });
      }
    }
    for (const m of this.meteors) { m.x += m.vx * dt; m.y += m.vy * dt; m.age += dt; }
    const before = this.meteors.length;
    this.meteors = this.meteors.filter((m) => m.y < h + 80 * ratio && m.x > -120 * ratio && m.x < w + 120 * ratio);
    this.stats.missed += before - this.meteors.length;
    for (const s of this.sparks) { s.x += s.vx * dt; s.y += s.vy * dt; s.vy += 300 * ratio * dt; s.life -= dt; }
    this.sparks = this.sparks.filter((s) => s.life > 0);
    this.draw(w, h, ratio);
    this.frame = requestAnimationFrame((t) => this.tick(t));
  }

  spawn(round, w, h, ratio) {
    const r = round.random;
    round.spawned += 1;
    this.stats.spawned += 1;
    if (round.spawned === 1) this.banner("");
    // From the top (or the upper right), falling down and to the left, crossing in 2.6–3.8 s.
    const fromTop = r() < 0.7;
    const x = fromTop ? (0.2 + r() * 0.85) * w : w + 20 * ratio;
    const y = fromTop ? -30 * ratio : r() * h * 0.45;
    const seconds = 2.6 + r() * 1.2;
    const angle = (0.55 + r() * 0.35) * Math.PI / 2; // below the horizontal, to the left
    const distance = Math.hypot(w, h) * 0.9;
    const speed = distance / seconds;
    this.meteors.push({ x, y, vx: -Math.cos(angle) * speed, vy: Math.sin(angle) * speed, size: (5 + r() * 4) * ratio, age: 0, hue: r() });
  }

  tap(event) {
    event.preventDefault();
    const rect = this.canvas.getBoundingClientRect(), ratio = this.canvas.width / rect.width;
    const x = (event.clientX - rect.left) * ratio, y = (event.clientY - rect.top) * ratio;
    const reach = Math.max(36, Math.min(rect.width, rect.height) * 0.07) * ratio;
    let best = null, bestD = Infinity;
    for (const m of this.meteors) {
      const d = Math.hypot(m.x - x, m.y - y);
      if (d < bestD) { bestD = d; best = m; }
    }
    if (!best || bestD > reach || !this.round) return;
    this.meteors.splice(this.meteors.indexOf(best), 1);
    this.round.caught += 1;
    this.caughtTotal += 1;
    this.stats.caught += 1;
    this.layer.querySelector(".pz-caught").textContent = `Caught ${this.caughtTotal}`;
    for (let i = 0; i < 16; i++) {
      const a = Math.random() * Math.PI * 2, v = (60 + Math.random() * 160) * ratio;
      this.sparks.push({ x: best.x, y: best.y, vx: Math.cos(a) * v, vy: Math.sin(a) * v - 80 * ratio, life: 0.5 + Math.random() * 0.4 });
    }
  }

  draw(w, h, ratio) {
    const ctx = this.canvas.getContext("2d");
    ctx.clearRect(0, 0, w, h);
    for (const m of this.meteors) {
      const speed = Math.hypot(m.vx, m.vy), tail = Math.min(1, m.age * 3) * 110 * ratio;
      const tx = m.x - (m.vx / speed) * tail, ty = m.y - (m.vy / speed) * tail;
      const gradient = ctx.createLinearGradient(m.x, m.y, tx, ty);
      const colour = m.hue < 0.5 ? "255, 214, 120" : "170, 200, 255";
      gradient.addColorStop(0, `rgba(${colour}, 0.95)`);
      gradient.addColorStop(1, `rgba(${colour}, 0)`);
      ctx.strokeStyle = gradient;
      ctx.lineWidth = m.size * 0.9;
      ctx.lineCap = "round";
      ctx.beginPath(); ctx.moveTo(m.x, m.y); ctx.lineTo(tx, ty); ctx.stroke();
      const glow = ctx.createRadialGradient(m.x, m.y, 0, m.x, m.y, m.size * 3);
      glow.addColorStop(0, "rgba(255, 255, 255, 1)");
      glow.addColorStop(0.3, `rgba(${colour}, 0.8)`);
      glow.addColorStop(1, `rgba(${colour}, 0)`);
      ctx.fillStyle = glow;
      ctx.beginPath(); ctx.arc(m.x, m.y, m.size * 3, 0, Math.PI * 2); ctx.fill();
    }
    for (const s of this.sparks) {
      ctx.globalAlpha = Math.max(0, s.life / 0.9);
      ctx.fillStyle = "#ffe9a8";
      ctx.fillRect(s.x - 2 * ratio, s.y - 2 * ratio, 4 * ratio, 4 * ratio);
    }
    ctx.globalAlpha = 1;
  }
}
