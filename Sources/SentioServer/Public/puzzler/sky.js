// The night sky behind the map: faint stars and a milky band, the same on every visit (seeded).

/** A small seeded random generator (mulberry32): the same seed gives the same numbers. */
export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws the background sky on `canvas`, sized to its box. */
export function drawSky(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(canvas.clientWidth * ratio)), h = Math.max(1, Math.round(canvas.clientHeight * ratio));
  canvas.width = w; canvas.height = h;
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, w, h);
  const random = seeded(1707);
  // A soft band across the sky.
  ctx.save();
  ctx.translate(w / 2, h / 2);
  ctx.rotate(-0.45);
  const band = ctx.createLinearGradient(0, -h * 0.35, 0, h * 0.35);
  band.addColorStop(0, "rgba(120, 110, 255, 0)");
  band.addColorStop(0.5, "rgba(150, 140, 255, 0.10)");
  band.addColorStop(1, "rgba(120, 110, 255, 0)");
  ctx.fillStyle = band;
  ctx.fillRect(-w, -h * 0.35, w * 2, h * 0.7);
  ctx.restore();
  const count = Math.round((w * h) / (2600 * ratio * ratio));
  for (let i = 0; i < count; i++) {
    const x = random() * w, y = random() * h, r = (random() ** 3 * 1.4 + 0.35) * ratio;
    const tone = random();
    ctx.globalAlpha = 0.25 + random() * 0.6;
    ctx.fillStyle = tone < 0.15 ? "#ffe6b0" : tone < 0.35 ? "#c8d4ff" : "#ffffff";
    ctx.beginPath();
    ctx.arc(x, y, r, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.globalAlpha = 1;
}
