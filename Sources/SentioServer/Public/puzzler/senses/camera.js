// Camera levels (face, colour, objects, hands): the mirrored selfie view, frames as JPEG from
// the shared camera helper to the level socket — one in flight, the newest grabbed when the
// reply comes, at most ~15 per second — and the level's `detail` drawn over the view.
import { openCamera, grabJPEG } from "/js/camera.js";
import { fit } from "/js/draw.js";
import { actionButton } from "/puzzler/play.js";

const FRAME_MS = 1000 / 15;
/** Mean luma (0…255) under which a face or a hand cannot be seen. */
const TOO_DARK = 28;

export function cameraSense(level, view, el) {
  const grab = document.createElement("canvas");
  const probe = document.createElement("canvas");
  probe.width = 16; probe.height = 12;
  let running = false, inFlight = false, lastSent = 0, timer = 0, lastDetail = null, lastReply = null;
  const darkLevel = level.id === "dark";
  const isFace = level.sense === "face";
  // Things are shown to the camera on the far side of a phone (the fruit level): the rear
  // camera where there is one (an ideal, so a laptop's only camera still opens), not mirrored —
  // the overlay draws only the scores there, nothing placed on the picture.
  const rear = level.sense === "objects";

  async function start() {
    view.wait("camera", { icon: "◉", text: "Starting the camera… Allow it when the browser asks." });
    try {
      await openCamera(el.video, rear ? "environment" : "user");
      if (rear) { el.video.style.transform = "none"; el.video.setAttribute("aria-label", "Camera"); }
    } catch (error) {
      view.wait("camera", { icon: "⚠", text: error.message, actions: [actionButton("Try again", start, true)] });
      return;
    }
    view.wait("camera", null);
    // The stage takes the camera's shape, so the view is not cropped and 0…1 is the whole frame.
    const w = el.video.videoWidth || 640, h = el.video.videoHeight || 480;
    el.stage.style.aspectRatio = `${w} / ${h}`;
    // …and fits the window's height on a desktop (under the header and the title).
    el.stage.style.maxWidth = `max(240px, calc((100dvh - 200px) * ${(w / h).toFixed(4)}))`;
    running = true;
    view.opened = () => { inFlight = false; next(); };
    view.connect();
    requestAnimationFrame(paint);
  }

  async function next() {
    clearTimeout(timer);
    if (!running || inFlight || !view.isOpen || el.video.readyState < 2) {
      if (running && !inFlight) timer = setTimeout(next, 100);
      return;
    }
    if (view.paused) { timer = setTimeout(next, 300); return; }
    const wait = FRAME_MS - (performance.now() - lastSent);
    if (wait > 0) { timer = setTimeout(next, wait); return; }
    inFlight = true;
    lastSent = performance.now();
    const blob = await grabJPEG(el.video, grab, 0.75);
    if (!darkLevel && level.sense !== "colour") checkLight();
    if (!blob || !view.send(blob)) { inFlight = false; timer = setTimeout(next, 200); }
  }

  /** Too dark to see a face or a hand: said here, from a 16×12 copy of the frame. */
  function checkLight() {
    const ctx = probe.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(grab, 0, 0, 16, 12);
    const px = ctx.getImageData(0, 0, 16, 12).data;
    let sum = 0;
    for (let i = 0; i < px.length; i += 4) sum += 0.299 * px[i] + 0.587 * px[i + 1] + 0.114 * px[i + 2];
    const mean = sum / (px.length / 4);
    view.wait("dark", mean < TOO_DARK ? { icon: "☾", text: "It is too dark to see you. Turn on a light or face a window." } : null);
  }

  function reply(r) {
    inFlight = false;
    if (r.type === "level") {
      lastReply = r;
      lastDetail = r.detail || {};
      const d = lastDetail;
      if (isFace || "faces" in d) {
        view.wait("faces", d.faces >= 2 ? { icon: "☺☺", text: "Two faces are in view. This level is for one player: only one face, please." } : null);
        view.chip(d.faces === 0 ? "No face in view: look into the camera" : "", "warn");
      }
      if (darkLevel) darkReply(d);
      // The colour's name beside its swatch (for players who do not tell those colours apart).
      if (Array.isArray(d.swatches)) {
        const current = d.swatches[d.current] || d.swatches.find((s) => !s.done);
        view.chip(current?.name ? `Colour: ${current.name}` : "");
      }
      if (level.sense === "objects" || level.sense === "hands") objectsReply(d);
    }
    // Next frame now (the reply answered the one in flight).
    next();
  }

  // ---- The dark level: the page's grey follows the camera's lightness; the button appears. ----
  function darkReply(d) {
    if (typeof d.grey === "number") {
      const g = Math.round(Math.max(0, Math.min(255, d.grey)));
      document.body.classList.add("pz-grey");
      document.body.style.backgroundColor = `rgb(${g} ${g} ${g})`;
      // The title sits on the grey itself: dark letters on a light grey.
      document.body.classList.toggle("pz-grey-light", g > 120);
    }
    const button = el.darkButton;
    if (d.button && !view.paused && button.classList.contains("hidden")) {
      button.classList.remove("hidden");
    } else if (!d.button) button.classList.add("hidden");
    if (typeof d.lightness === "number") {
      const t = typeof d.threshold === "number" ? ` · need under ${Math.round(d.threshold)}` : "";
      view.chip(`Light ${Math.round(d.lightness)}${t}`);
    }
  }

  function objectsReply(d) {
    // The wanted thing is the puzzle: the chip never names it (the clue does, in riddle).
    if (d.want) {
      const which = d.step === 1 ? "Now the second thing" : "Show me…";
      view.chip(d.seen ? `${which} · I see: ${d.seen}` : which);
    }
  }

  // ---- Drawing the detail over the view (the overlay is not mirrored: the coordinates are the mirrored view's). ----
  function paint(now) {
    if (!running) return;
    requestAnimationFrame(paint);
    const canvas = el.overlay, ratio = fit(canvas), ctx = canvas.getContext("2d");
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const d = lastDetail;
    if (!d) return;
    const W = canvas.width, H = canvas.height, unit = Math.min(W, H) / 100;
    if (d.targets || d.cursor) drawNose(ctx, d, W, H, unit, now);
    if (d.window) drawColours(ctx, d, W, H, unit, ratio);
    if (d.scores) drawScores(ctx, d, W, H, unit);
    // The hold timer: for face levels only while exactly one face is in view.
    const held = Number(d.heldSeconds), need = Number(d.needSeconds);
    if (Number.isFinite(held) && Number.isFinite(need) && need > 0 && (held > 0 || d.holding) && !d.window && (!isFace || d.faces === 1)) {
      drawTimer(ctx, W / 2, 13 * unit, 9 * unit, held, need, ratio);
    }
  }

  return { start, reply, stop() { running = false; }, get detail() { return lastDetail; }, get last() { return lastReply; } };
}

function drawTimer(ctx, x, y, r, held, need, ratio) {
  const f = Math.max(0, Math.min(1, held / need));
  ctx.save();
  ctx.fillStyle = "rgba(7, 10, 28, 0.7)";
  ctx.beginPath(); ctx.arc(x, y, r * 1.25, 0, Math.PI * 2); ctx.fill();
  ctx.lineWidth = r * 0.28; ctx.lineCap = "round";
  ctx.strokeStyle = "rgba(255,255,255,0.15)";
  ctx.beginPath(); ctx.arc(x, y, r, 0, Math.PI * 2); ctx.stroke();
  ctx.strokeStyle = f >= 1 ? "#5ee6a8" : "#ffd34d";
  ctx.beginPath(); ctx.arc(x, y, r, -Math.PI / 2, -Math.PI / 2 + f * Math.PI * 2); ctx.stroke();
  ctx.fillStyle = "#fff";
  ctx.font = `700 ${Math.round(r * 0.75)}px system-ui, sans-serif`;
  ctx.textAlign = "center"; ctx.textBaseline = "middle";
  ctx.fillText(`${Math.max(0, need - held).toFixed(1)}`, x, y);
  ctx.restore();
}

function drawNose(ctx, d, W, H, unit, now) {
  const targets = d.targets || [];
  targets.forEach((t, i) => {
    const x = t.x * W, y = t.y * H, r = Math.max(3 * unit, (t.r || 0.05) * Math.min(W, H));
    const isNext = i === d.next && !t.hit;
    ctx.save();
    if (t.hit) {
      ctx.fillStyle = "rgba(255, 211, 77, 0.85)";
      ctx.shadowColor = "#ffd34d"; ctx.shadowBlur = 2 * unit;
    } else ctx.fillStyle = isNext ? "rgba(95, 168, 255, 0.35)" : "rgba(255, 255, 255, 0.12)";
    ctx.beginPath(); ctx.arc(x, y, r, 0, Math.PI * 2); ctx.fill();
    ctx.shadowBlur = 0;
    ctx.lineWidth = (isNext ? 0.8 : 0.4) * unit;
    ctx.strokeStyle = t.hit ? "#ffd34d" : isNext ? `rgba(95, 168, 255, ${0.6 + 0.4 * Math.sin(now / 200)})` : "rgba(255,255,255,0.5)";
    ctx.stroke();
    ctx.fillStyle = t.hit ? "#3a2a00" : "#fff";
    ctx.font = `700 ${Math.round(r * 0.8)}px system-ui, sans-serif`;
    ctx.textAlign = "center"; ctx.textBaseline = "middle";
    ctx.fillText(String(i + 1), x, y);
    ctx.restore();
  });
  if (d.cursor) {
    // Kept whole inside the view even when the cursor is at an edge.
    const m = 2.2 * unit, x = Math.min(W - m, Math.max(m, d.cursor.x * W)), y = Math.min(H - m, Math.max(m, d.cursor.y * H));
    ctx.save();
    ctx.strokeStyle = "#fff"; ctx.lineWidth = 0.5 * unit;
    ctx.fillStyle = "#ff6b7a"; ctx.shadowColor = "#ff6b7a"; ctx.shadowBlur = 2 * unit;
    ctx.beginPath(); ctx.arc(x, y, 1.6 * unit, 0, Math.PI * 2); ctx.fill(); ctx.stroke();
    ctx.restore();
  }
}

function drawColours(ctx, d, W, H, unit, ratio) {
  const w = d.window, x = w.x * W, y = w.y * H, ww = w.w * W, wh = w.h * H;
  const swatches = d.swatches || [];
  const current = swatches[d.current] || swatches.find((s) => !s.done);
  ctx.save();
  // Dim everything but the cut-out.
  ctx.fillStyle = "rgba(5, 7, 26, 0.6)";
  ctx.beginPath(); ctx.rect(0, 0, W, H); ctx.rect(x, y, ww, wh); ctx.fill("evenodd");
  ctx.lineWidth = 1.2 * unit;
  ctx.strokeStyle = current ? current.hex : "#fff";
  ctx.strokeRect(x, y, ww, wh);
  // The hold timer on the cut-out's edge.
  const held = Number(d.heldSeconds), need = Number(d.needSeconds);
  if (Number.isFinite(held) && need > 0 && held > 0) {
    ctx.strokeStyle = "#fff"; ctx.lineWidth = 1.2 * unit;
    ctx.beginPath(); ctx.moveTo(x, y + wh + 2 * unit); ctx.lineTo(x + ww * Math.min(1, held / need), y + wh + 2 * unit); ctx.stroke();
  }
  // The swatches along the bottom: done ones ticked, the current one larger.
  const n = swatches.length, size = Math.min(9 * unit, (W * 0.9) / Math.max(1, n) - 2 * unit), gap = 2 * unit;
  let sx = (W - (n * size + (n - 1) * gap)) / 2;
  const sy = H - size - 4 * unit;
  swatches.forEach((s, i) => {
    const isCurrent = s === current;
    const grow = isCurrent ? 1.2 : 1, side = size * grow, ox = sx - (side - size) / 2, oy = sy - (side - size) / 2;
    ctx.fillStyle = s.hex;
    ctx.shadowColor = isCurrent ? s.hex : "transparent"; ctx.shadowBlur = isCurrent ? 3 * unit : 0;
    roundRect(ctx, ox, oy, side, side, 1.5 * unit); ctx.fill();
    ctx.shadowBlur = 0;
    ctx.lineWidth = (isCurrent ? 0.7 : 0.3) * unit;
    ctx.strokeStyle = isCurrent ? "#fff" : "rgba(255,255,255,0.4)"; ctx.stroke();
    if (s.done) {
      ctx.fillStyle = "rgba(7,10,28,0.55)"; roundRect(ctx, ox, oy, side, side, 1.5 * unit); ctx.fill();
      ctx.fillStyle = "#ffd34d"; ctx.font = `700 ${Math.round(side * 0.6)}px system-ui, sans-serif`;
      ctx.textAlign = "center"; ctx.textBaseline = "middle"; ctx.fillText("★", ox + side / 2, oy + side / 2);
    }
    sx += size + gap;
  });
  if (Number.isFinite(Number(d.deltaE)) && current) {
    ctx.fillStyle = "#fff"; ctx.font = `600 ${Math.round(3.6 * unit)}px system-ui, sans-serif`;
    ctx.textAlign = "center"; ctx.textBaseline = "bottom";
    ctx.fillText(`ΔE ${Number(d.deltaE).toFixed(0)}`, x + ww / 2, y - unit);
  }
  ctx.restore();
}

function drawScores(ctx, d, W, H, unit) {
  const entries = Object.entries(d.scores || {});
  ctx.save();
  const bw = 28 * unit, bh = 3 * unit;
  entries.forEach(([label, score], i) => {
    const x = 3 * unit, y = 7.5 * unit + i * (bh + 8 * unit);
    ctx.fillStyle = "rgba(7,10,28,0.7)"; roundRect(ctx, x - 1.5 * unit, y - 5 * unit, bw + 3 * unit, bh + 6.5 * unit, unit); ctx.fill();
    // Named by their order, not by the fruit (naming them would give the puzzle away); never
    // smaller than 11 px on a phone.
    ctx.fillStyle = "#fff"; ctx.font = `600 ${Math.max(11, Math.round(3 * unit))}px system-ui, sans-serif`; ctx.textBaseline = "bottom";
    ctx.fillText(`${i === 0 ? "1st" : "2nd"} ${Math.round(Number(score) * 100)}%`, x, y - 1 * unit);
    ctx.fillStyle = "rgba(255,255,255,0.15)"; ctx.fillRect(x, y, bw, bh);
    ctx.fillStyle = label === d.want ? "#ffd34d" : "#5fa8ff"; ctx.fillRect(x, y, bw * Math.max(0, Math.min(1, Number(score) || 0)), bh);
  });
  ctx.restore();
}

function roundRect(ctx, x, y, w, h, r) {
  ctx.beginPath();
  ctx.moveTo(x + r, y); ctx.arcTo(x + w, y, x + w, y + h, r); ctx.arcTo(x + w, y + h, x, y + h, r);
  ctx.arcTo(x, y + h, x, y, r); ctx.arcTo(x, y, x + w, y, r); ctx.closePath();
}
