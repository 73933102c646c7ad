// The star map: the catalogue's stars placed by x/y, lines to their neighbours, the player's
// states (open blue, solved yellow, locked dim), a card per star (title, clue, hints, play),
// points, the resume code and the meteor shower that earns points.
import { showAccountLink, status } from "/js/account.js";
import { catalogue, progress, buyHintInto, resume, loadError, starSVG, APIError, SENSE_WORDS } from "/puzzler/api.js";
import { MeteorShower } from "/puzzler/meteors.js";
import { drawSky } from "/puzzler/sky.js";

const $ = (id) => document.getElementById(id);
const TIERS = ["nudge", "method", "answer"];

// For the browser tests: what the map shows.
const state = window.sentioPuzzler = { catalogue: null, progress: null, chosen: null, error: null };

async function load() {
  try {
    // Progress first: it sets a guest's cookie, which the catalogue does not need.
    const [p, c] = await Promise.all([progress(), catalogue()]);
    state.progress = p; state.catalogue = c; state.error = null;
    $("sky-wait").classList.add("hidden");
    render();
  } catch (error) {
    state.error = error.message;
    $("sky-wait").innerHTML = "";
    const p = document.createElement("p");
    p.textContent = loadError(error);
    const retry = document.createElement("button");
    retry.type = "button"; retry.textContent = "Try again";
    retry.addEventListener("click", () => { $("sky-wait").innerHTML = "<p>Reading the stars…</p>"; load(); });
    $("sky-wait").append(p, retry);
    $("sky-wait").classList.remove("hidden");
  }
}

function levelState(id) { return state.progress?.byId.get(id)?.state || "locked"; }

/** Where a star goes, in fractions of the sky box: a portrait sky turns the map a quarter. */
function place(level) {
  const sky = $("sky");
  const portrait = sky.clientHeight > sky.clientWidth * 1.05;
  const x = clamp(Number(level.x) || 0), y = clamp(Number(level.y) || 0);
  const [u, v] = portrait ? [1 - y, x] : [x, y];
  // Keep the stars off the very edge, where their labels would be cut.
  return [0.06 + u * 0.88, 0.07 + v * 0.86];
}
const clamp = (v) => Math.min(1, Math.max(0, v));

function render() {
  const { levels, byId } = state.catalogue;
  const p = state.progress;
  const solved = levels.filter((l) => levelState(l.id) === "solved").length;
  $("points").textContent = `${p.points ?? 0} points`;
  $("points-side").textContent = String(p.points ?? 0);
  $("solved").textContent = `${solved} / ${levels.length}`;
  $("solved-bar").style.width = `${levels.length ? (100 * solved) / levels.length : 0}%`;
  $("resume-code").textContent = p.player?.resumeCode || "––––––––";
  $("player-line").textContent = p.player?.kind === "guest" || !p.player
    ? "Playing as a guest on this device. Sign in to keep your sky with your account."
    : `Playing as ${p.player.name || "you"}.`;

  const positions = new Map(levels.map((l) => [l.id, place(l)]));
  // Lines: each pair once.
  const svg = $("lines");
  svg.innerHTML = "";
  const seen = new Set();
  for (const level of levels) {
    for (const other of level.neighbours || []) {
      if (!byId.has(other)) continue;
      const key = [level.id, other].sort().join("|");
      if (seen.has(key)) continue;
      seen.add(key);
      const [x1, y1] = positions.get(level.id), [x2, y2] = positions.get(other);
      const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
      Object.entries({ x1, y1, x2, y2 }).forEach(([k, v]) => line.setAttribute(k, String(v)));
      const a = levelState(level.id), b = levelState(other);
      if (a === "solved" && b === "solved") line.classList.add("lit");
      else if ((a === "solved" && b === "open") || (a === "open" && b === "solved")) line.classList.add("reach");
      svg.append(line);
    }
  }
  const stars = $("stars");
  stars.innerHTML = "";
  twinkleLater();
  for (const level of levels) {
    const s = levelState(level.id);
    const [x, y] = positions.get(level.id);
    const button = document.createElement("button");
    button.type = "button";
    button.className = `pz-star ${s}`;
    if (x > 0.85) button.classList.add("edge-right");
    if (x < 0.15) button.classList.add("edge-left");
    button.style.left = `${x * 100}%`;
    button.style.top = `${y * 100}%`;
    button.dataset.level = level.id;
    button.setAttribute("aria-label", `Level ${level.number}: ${level.title}, ${s}`);
    button.innerHTML = `<span class="pz-glyph">${starSVG()}</span><span class="pz-num">${Number(level.number) || ""}</span><span class="pz-label"></span>`;
    button.querySelector(".pz-label").textContent = `${level.number} · ${level.title}`;
    button.addEventListener("click", (event) => { event.stopPropagation(); choose(level.id); });
    if (state.chosen === level.id) button.classList.add("chosen");
    stars.append(button);
  }
  if (state.chosen) showCard(state.chosen);
}

// The open stars twinkle (an infinite opacity animation) only once the map has been drawn:
// WebKit (Safari's engine; measured in WebKitGTK) left every star of a freshly built map
// unpainted for seconds while such an animation was starting with it — the lines showed, the
// stars did not (issue 36). Started a second later, the stars are drawn at once and twinkle.
let twinkleTimer = null;
function twinkleLater() {
  $("sky").classList.remove("twinkle");
  clearTimeout(twinkleTimer);
  twinkleTimer = setTimeout(() => $("sky").classList.add("twinkle"), 1000);
}

function choose(id) {
  state.chosen = id;
  for (const b of document.querySelectorAll(".pz-star")) b.classList.toggle("chosen", b.dataset.level === id);
  status($("card-status"), "");
  showCard(id);
}

function showCard(id) {
  const level = state.catalogue.byId.get(id);
  if (!level) return;
  const mine = state.progress.byId.get(id) || { state: "locked", hints: [], hintsLeft: 3 };
  const s = mine.state || "locked";
  $("card-number").textContent = `${level.number}`;
  $("card-name").textContent = level.title;
  $("card-state").textContent = s === "solved" && mine.seconds != null ? `solved in ${formatSeconds(mine.seconds)}` : s;
  $("card-state").className = `pz-state ${s}`;
  $("card-sense").textContent = SENSE_WORDS[level.sense] ? `with ${SENSE_WORDS[level.sense]}` : "";
  $("card-clue").textContent = s === "locked" ? "Locked: solve a neighbouring star to open it." : level.clue || "";
  const hints = $("card-hints");
  hints.innerHTML = "";
  (mine.hints || []).forEach((text, i) => {
    const li = document.createElement("li");
    const tier = document.createElement("span");
    tier.className = "tier"; tier.textContent = TIERS[i] || `hint ${i + 1}`;
    li.append(tier, document.createTextNode(text));
    hints.append(li);
  });
  const play = $("card-play");
  play.href = `/puzzler/level.html?level=${encodeURIComponent(id)}`;
  play.textContent = s === "solved" ? "Play again" : "Play";
  play.classList.toggle("hidden", s === "locked");
  const hint = $("card-hint");
  const left = mine.hintsLeft ?? 3 - (mine.hints || []).length;
  hint.classList.toggle("hidden", s === "locked" || left <= 0);
  hint.disabled = (state.progress.points ?? 0) < (state.progress.hintCost ?? 50);
  hint.title = hint.disabled ? `You need ${state.progress.hintCost ?? 50} points: catch meteors` : "";
  hint.textContent = `${["Buy a nudge", "Buy the method", "Buy the answer"][3 - left] || "Buy a hint"} · ${state.progress.hintCost ?? 50} ☄`;
  const card = $("card");
  card.classList.remove("hidden");
  // Beside the star, inside the sky.
  const sky = $("sky"), star = document.querySelector(`.pz-star[data-level="${CSS.escape(id)}"]`);
  const W = sky.clientWidth, H = sky.clientHeight;
  const sx = star ? star.offsetLeft : W / 2, sy = star ? star.offsetTop : H / 2;
  const cw = card.offsetWidth, ch = card.offsetHeight;
  let left2 = sx + 30, top = sy - ch / 2;
  if (left2 + cw > W - 8) left2 = sx - 30 - cw;
  if (left2 < 8) { left2 = Math.max(8, Math.min(W - cw - 8, sx - cw / 2)); top = sy + 34; if (top + ch > H - 8) top = sy - 34 - ch; }
  card.style.left = `${Math.round(left2)}px`;
  card.style.top = `${Math.round(Math.max(8, Math.min(H - ch - 8, top)))}px`;
}

function closeCard() {
  state.chosen = null;
  $("card").classList.add("hidden");
  for (const b of document.querySelectorAll(".pz-star.chosen")) b.classList.remove("chosen");
}

function formatSeconds(seconds) {
  const s = Math.round(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

async function onBuyHint() {
  const id = state.chosen;
  if (!id) return;
  $("card-hint").disabled = true;
  status($("card-status"), "Buying a hint…");
  try {
    await buyHintInto(state.progress, id);
    status($("card-status"), "");
    render();
  } catch (error) {
    status($("card-status"), error.message, "bad");
    $("card-hint").disabled = false;
  }
}

function setPoints(points) {
  if (!state.progress) return;
  state.progress.points = points;
  $("points").textContent = `${points} points`;
  $("points-side").textContent = String(points);
  if (state.chosen) showCard(state.chosen);
}

async function onResume(event) {
  event.preventDefault();
  const code = $("resume-input").value.trim().toUpperCase();
  if (!/^[A-Z]{8}$/.test(code)) { status($("resume-status"), "A resume code is 8 letters.", "warn"); return; }
  status($("resume-status"), "Looking for that sky…");
  try {
    await resume(code);
    $("resume-input").value = "";
    status($("resume-status"), "Welcome back: this device now plays your game.", "ok");
    closeCard();
    await load();
  } catch (error) {
    status($("resume-status"), error instanceof APIError && error.status === 404 ? "No game has that code." : error.message, "bad");
  }
}

// ---- Wiring -------------------------------------------------------------------------------

const shower = new MeteorShower($("sky"), {
  onPoints: setPoints,
  onStatus: (text, tone) => status($("meteor-status"), text, tone),
  onEnd: () => { $("meteors").disabled = false; $("meteors").textContent = "☄ Catch meteors"; },
});
state.shower = shower;
$("meteors").addEventListener("click", () => {
  if (!state.progress) { status($("meteor-status"), "The map has not loaded yet.", "warn"); return; }
  closeCard();
  $("meteors").disabled = true;
  $("meteors").textContent = "Shower on the map…";
  shower.start();
});
$("card-close").addEventListener("click", closeCard);
$("card-hint").addEventListener("click", onBuyHint);
$("card").addEventListener("click", (event) => event.stopPropagation());
$("sky").addEventListener("click", () => { if (state.chosen) closeCard(); });
document.addEventListener("keydown", (event) => { if (event.key === "Escape" && state.chosen) closeCard(); });
$("resume-form").addEventListener("submit", onResume);
$("copy-code").addEventListener("click", async () => {
  const code = state.progress?.player?.resumeCode;
  if (!code) return;
  try { await navigator.clipboard.writeText(code); status($("resume-status"), "Copied.", "ok"); }
  catch { status($("resume-status"), "Select the code and copy it.", "warn"); }
});
let resizeTimer = 0;
const sky = () => drawSky($("sky-bg"));
new ResizeObserver(() => {
  sky();
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => { if (state.catalogue) render(); }, 60);
}).observe($("sky"));
// Coming back from a level (the browser's back button) shows the new states.
window.addEventListener("pageshow", (event) => { if (event.persisted) load(); });
showAccountLink();
load();
