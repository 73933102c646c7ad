// Touch levels. SOS: a big button; each press's length goes as {"type": "press", "ms"}; the
// server reads the Morse. Drawing: a pad; when a stroke ends the whole picture goes as
// {"type": "drawing", "strokes": [[[x, y], …], …]} in 0…1 of the pad; the server guesses.

/** Presses shorter than this are drawn as a dot (only the drawing here; the server decides). */
const DOT_MS = 300;

export function sosSense(level, view, el) {
  let down = 0, lastUp = 0, lastDetail = null, tape = "";
  el.scene.innerHTML = `<button type="button" class="pz-press" aria-label="Press: short or long">PRESS</button>
    <p class="pz-tape" aria-live="polite"></p><p class="pz-letters" aria-live="polite"></p>
    <p class="small muted">A tap is a dot; hold a little longer for a dash.</p>`;
  const button = el.scene.querySelector(".pz-press"), tapeBox = el.scene.querySelector(".pz-tape"), letters = el.scene.querySelector(".pz-letters");

  const press = (event) => {
    event.preventDefault();
    if (down) return;
    down = performance.now();
    button.classList.add("down");
    try { button.setPointerCapture(event.pointerId); } catch { /* a synthetic or ended pointer */ }
  };
  const release = (event) => {
    event.preventDefault();
    if (!down) return;
    const at = performance.now(), ms = Math.round(at - down);
    // The pause before this press (the server starts over after a long one).
    const gapMs = lastUp ? Math.round(down - lastUp) : undefined;
    down = 0;
    lastUp = at;
    button.classList.remove("down");
    tape = (tape + (ms < DOT_MS ? "·" : "—")).slice(-24);
    tapeBox.textContent = tape;
    view.send({ type: "press", ms, gapMs });
  };
  button.addEventListener("pointerdown", press);
  button.addEventListener("pointerup", release);
  button.addEventListener("pointercancel", release);
  button.addEventListener("contextmenu", (e) => e.preventDefault());
  // The keyboard too: Space or Enter held.
  button.addEventListener("keydown", (e) => { if ((e.key === " " || e.key === "Enter") && !e.repeat) press(e); });
  button.addEventListener("keyup", (e) => { if (e.key === " " || e.key === "Enter") release(e); });

  function reply(r) {
    if (r.type !== "level") return;
    const d = lastDetail = r.detail || {};
    if (typeof d.letters === "string") letters.textContent = d.letters;
    else if (Array.isArray(d.letters)) letters.textContent = d.letters.join("");
    if (Array.isArray(d.presses)) {
      tape = d.presses.map((p) => (typeof p === "string" ? (p === "." ? "·" : p === "-" ? "—" : p) : (Number(p) < DOT_MS ? "·" : "—"))).join("").slice(-24);
      tapeBox.textContent = tape;
    } else if (typeof d.presses === "string") { tape = d.presses.replaceAll(".", "·").replaceAll("-", "—"); tapeBox.textContent = tape; }
  }

  return { start() { view.connect(); }, reply, stop() {}, clear() { tape = ""; lastUp = 0; tapeBox.textContent = ""; letters.textContent = ""; }, get detail() { return lastDetail; } };
}

export function drawingSense(level, view, el) {
  let strokes = [], current = null, lastDetail = null;
  el.stage.classList.add("pz-short");
  el.scene.innerHTML = `<canvas class="pz-pad" aria-label="Drawing pad: draw with a finger or the mouse"></canvas>
    <div class="pz-guesses" aria-live="polite"></div>
    <div class="pz-pad-tools"><button type="button" class="pz-undo">Undo</button><button type="button" class="pz-clear">Clear</button></div>`;
  const pad = el.scene.querySelector(".pz-pad"), guesses = el.scene.querySelector(".pz-guesses");

  function point(event) {
    const rect = pad.getBoundingClientRect();
    const x = (event.clientX - rect.left) / rect.width, y = (event.clientY - rect.top) / rect.height;
    return [Math.round(Math.min(1, Math.max(0, x)) * 1000) / 1000, Math.round(Math.min(1, Math.max(0, y)) * 1000) / 1000];
  }
  pad.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    try { pad.setPointerCapture(event.pointerId); } catch { /* a synthetic or ended pointer */ }
    current = [point(event)];
    strokes.push(current);
    paint();
  });
  pad.addEventListener("pointermove", (event) => {
    if (!current) return;
    const p = point(event), last = current[current.length - 1];
    if (Math.hypot(p[0] - last[0], p[1] - last[1]) < 0.004) return;
    current.push(p);
    paint();
  });
  const end = () => { if (!current) return; current = null; submit(); };
  pad.addEventListener("pointerup", end);
  pad.addEventListener("pointercancel", end);
  el.scene.querySelector(".pz-undo").addEventListener("click", () => { strokes.pop(); paint(); submit(); });
  el.scene.querySelector(".pz-clear").addEventListener("click", () => { strokes = []; paint(); guesses.innerHTML = ""; view.send({ type: "reset" }, { expectReply: false }); });

  function submit() {
    if (strokes.length) view.send({ type: "drawing", strokes });
  }

  function paint() {
    const ratio = window.devicePixelRatio || 1;
    const w = Math.round(pad.clientWidth * ratio), h = Math.round(pad.clientHeight * ratio);
    if (pad.width !== w || pad.height !== h) { pad.width = w; pad.height = h; }
    const ctx = pad.getContext("2d");
    ctx.clearRect(0, 0, w, h);
    if (!strokes.length) {
      // An empty pad says what it is for, until the first stroke.
      ctx.fillStyle = "#8a8fb8"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
      const words = "Draw here with a finger or the mouse";
      ctx.font = `${18 * ratio}px system-ui, sans-serif`;
      const fit = Math.min(1, (0.8 * w) / ctx.measureText(words).width);   // a margin on a narrow pad
      ctx.font = `${Math.floor(18 * fit * ratio)}px system-ui, sans-serif`;
      ctx.fillText(words, w / 2, h / 2);
      return;
    }
    ctx.strokeStyle = "#1d2150"; ctx.lineWidth = 5 * ratio; ctx.lineCap = "round"; ctx.lineJoin = "round";
    for (const stroke of strokes) {
      ctx.beginPath();
      stroke.forEach(([x, y], i) => (i ? ctx.lineTo(x * w, y * h) : ctx.moveTo(x * w, y * h)));
      if (stroke.length === 1) ctx.lineTo(stroke[0][0] * w + 0.1, stroke[0][1] * h);
      ctx.stroke();
    }
  }
  new ResizeObserver(paint).observe(pad);

  function reply(r) {
    if (r.type !== "level") return;
    const d = lastDetail = r.detail || {};
    guesses.innerHTML = "";
    if (d.want) {
      const want = document.createElement("span");
      want.className = "want";
      want.textContent = `Draw: ${d.want}`;
      guesses.append(want);
    }
    (Array.isArray(d.top) ? d.top.slice(0, 3) : []).forEach((guess, i) => {
      const span = document.createElement("span");
      if (i === 0) span.className = "top";
      span.textContent = `${guess.label} ${Math.round(Number(guess.score) * 100)}%`;
      guesses.append(span);
    });
  }

  return { start() { view.connect(); }, reply, stop() {}, clear() { strokes = []; paint(); guesses.innerHTML = ""; }, get detail() { return lastDetail; } };
}
