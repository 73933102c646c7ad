// One level's page, for every level: ?level=ID. The catalogue says what to capture (`sense`);
// the level socket carries it to the server's judge and its replies come back (play.js). Also
// the hints, pairing a phone for motion and device levels on a desktop, and the solve.
import { showAccountLink, status } from "/js/account.js";
import { socketURL } from "/js/stream.js";
import { catalogue, progress, buyHintInto, pair, loadError, browserSignal, SENSE_WORDS } from "/puzzler/api.js";
import { LevelView, showSolved, actionButton, showWaiting } from "/puzzler/play.js";
import { createSense } from "/puzzler/senses/index.js";

const $ = (id) => document.getElementById(id);
const id = new URLSearchParams(location.search).get("level");
const BUY = ["Buy a nudge", "Buy the method", "Buy the answer"];
const el = {
  stage: $("stage"), video: $("video"), overlay: $("overlay"), scene: $("scene"), wait: $("wait"), chip: $("chip"),
  message: $("message"), ring: $("ring"), ringText: $("ring-text"), darkButton: $("dark-button"),
};
// For the browser tests.
const state = window.sentioPuzzlerLevel = { level: null, progress: null, view: null, sense: null, solvedShown: 0, room: null };

function fail(text, { retry = false } = {}) {
  showWaiting(el.wait, text);
  const back = document.createElement("a");
  back.className = "button"; back.href = "/puzzler/"; back.textContent = "Back to the star map";
  if (retry) el.wait.append(actionButton("Try again", () => { el.wait.innerHTML = "<p>Loading the level…</p>"; main(); }, true));
  el.wait.append(back);
}

async function main() {
  if (!id) { fail("No level was chosen. Pick a star on the map."); return; }
  let c, p;
  try {
    [p, c] = await Promise.all([progress(), catalogue()]);
  } catch (error) {
    fail(loadError(error), { retry: true });
    return;
  }
  const level = c.byId.get(id);
  if (!level) { fail(`There is no level “${id}”.`); return; }
  state.level = level; state.progress = p; state.catalogue = c;
  const mine = p.byId.get(id) || { state: "locked", hints: [], hintsLeft: 3 };
  document.title = `${level.title} — Puzzler — Sentio`;
  $("number").textContent = `Level ${level.number}${SENSE_WORDS[level.sense] ? ` · with ${SENSE_WORDS[level.sense]}` : ""}`;
  $("title").textContent = level.title;
  $("clue").textContent = level.clue || "";
  showPoints();
  showHints();
  if (mine.state === "locked") {
    fail("This star is still locked: solve one of its neighbours on the map to open it.");
    $("hint").classList.add("hidden");
    return;
  }
  el.wait.classList.add("hidden");
  const signal = browserSignal(level);
  if (signal?.text) { $("signal").textContent = `Here the browser senses: ${signal.text}`; $("signal").classList.remove("hidden"); }

  const names = new Map(c.levels.map((l) => [l.id, `${l.number} · ${l.title}`]));
  const view = state.view = new LevelView(level, el, {
    offlineOK: level.id === "offline",
    onReply: (reply) => { state.sense?.reply(reply); $("reset").disabled = false; },
    onSolved: (reply) => {
      state.solvedShown += 1;
      mine.state = "solved";
      el.darkButton.classList.add("hidden");
      showSolved(reply, names, { onClose: () => { view.resume(); state.sense?.clear?.(); } });
    },
  });
  if (level.sense !== "face" && !["colour", "objects", "hands"].includes(level.sense)) el.stage.classList.add("pz-short");
  const sense = state.sense = createSense(level, view, el, {
    onLacking: (what) => lacking(level, signal, what),
    onNoSensors: () => offerPhone(level, "This device sends no motion: pair a phone and play the level on it."),
  });
  if (level.sense === "face") {
    $("calibrate").classList.remove("hidden");
    $("calibrate").addEventListener("click", () => view.send({ type: "calibrate" }, { expectReply: false }));
  }
  $("reset").addEventListener("click", () => { view.send({ type: "reset" }, { expectReply: false }); sense.clear?.(); });
  el.darkButton.addEventListener("click", () => { view.send({ type: "button" }); el.darkButton.classList.add("hidden"); });
  if (sense.needsGesture) {
    const go = () => { $("start").classList.add("hidden"); view.wait("start", null); sense.start(); };
    $("start").textContent = sense.label;
    $("start").classList.remove("hidden");
    $("start").addEventListener("click", go);
    view.wait("start", { icon: "✦", text: startText(level), actions: [actionButton(sense.label, go, true)] });
  } else sense.start();
  if (level.needsPhone && !matchMedia("(pointer: coarse)").matches) offerPhone(level);
}

function startText(level) {
  switch (level.sense) {
    case "face": return "This level watches your face through the camera. Nothing is recorded: each picture is judged and forgotten.";
    case "colour": return "This level looks through the camera at light and colour.";
    case "objects": case "hands": return "This level looks through the camera at what you show it.";
    case "sound": return "This level listens through the microphone.";
    case "motion": return "This level feels the device move. On a phone, allow motion access when asked.";
    default: return "Ready?";
  }
}

/** The browser lacks a signal the level needs: say which, and offer the alternative. */
function lacking(level, signal, what) {
  const box = $("signal");
  box.classList.remove("hidden");
  box.textContent = `This browser cannot sense ${what.join(" or ")}.${signal?.alternative ? ` ${signal.alternative}` : ""}`;
  box.style.borderLeftColor = "var(--warn)";
  offerPhone(level, `This browser cannot sense ${what.join(" or ")}: a phone's browser may.`);
}

function showPoints() {
  $("points").textContent = `${state.progress?.points ?? 0} points`;
}

function showHints() {
  const mine = state.progress.byId.get(id) || { hints: [], hintsLeft: 3 };
  const list = $("hints");
  list.innerHTML = "";
  (mine.hints || []).forEach((text, i) => {
    const li = document.createElement("li");
    const tier = document.createElement("span");
    tier.className = "tier"; tier.textContent = ["nudge", "method", "answer"][i] || `hint ${i + 1}`;
    li.append(tier, document.createTextNode(text));
    list.append(li);
  });
  $("no-hints").classList.toggle("hidden", (mine.hints || []).length > 0);
  const left = mine.hintsLeft ?? 3 - (mine.hints || []).length;
  const button = $("hint");
  button.classList.toggle("hidden", left <= 0);
  button.textContent = `${BUY[3 - left] || "Buy a hint"} · ${state.progress.hintCost ?? 50} ☄`;
  const poor = (state.progress.points ?? 0) < (state.progress.hintCost ?? 50);
  button.disabled = poor;
  button.title = poor ? `You need ${state.progress.hintCost ?? 50} points: catch meteors on the star map` : "";
}

async function onBuyHint() {
  $("hint").disabled = true;
  status($("hint-status"), "Buying a hint…");
  try {
    await buyHintInto(state.progress, id);
    status($("hint-status"), "");
    showPoints();
    showHints();
  } catch (error) {
    status($("hint-status"), error.message, "bad");
    showHints();
  }
}

// ---- Pairing a phone ------------------------------------------------------------------------

function offerPhone(level, why) {
  $("pair-panel").classList.remove("hidden");
  if (why) $("pair-why").textContent = why;
}

async function onPair() {
  const level = state.level;
  $("pair").disabled = true;
  status($("pair-status"), "Opening a room…");
  let room;
  try {
    room = await pair(level.id);
  } catch (error) {
    status($("pair-status"), `Could not open a room: ${error.message}`, "bad");
    $("pair").disabled = false;
    return;
  }
  state.room = room.code;
  $("pair").classList.add("hidden");
  $("pair-box").classList.remove("hidden");
  $("pair-code").textContent = room.code;
  $("pair-qr").src = room.qr || `/api/v1/rooms/${encodeURIComponent(room.code)}/qr.svg`;
  const url = room.url || `${location.origin}/puzzler/phone.html?room=${encodeURIComponent(room.code)}&level=${encodeURIComponent(level.id)}`;
  $("pair-link").href = url;
  $("pair-link").textContent = url;
  status($("pair-status"), "Scan the code with your phone's camera, or open the link on it.");
  // From now on the phone plays: this page shows its replies, not its own capture's.
  state.sense?.stop();
  state.view.detach();
  state.view.wait("start", null);
  $("start").classList.add("hidden");
  state.phoneSeen = false;
  watchRoom(room.code);
}

/** The room's events: the phone joining or leaving, and every level reply it gets. */
function watchRoom(code, retry = 0) {
  const socket = new WebSocket(socketURL(`/api/v1/rooms/${encodeURIComponent(code)}/events`));
  socket.addEventListener("open", () => { retry = 0; });
  socket.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message.type === "room") {
      if (message.event === "joined") status($("pair-status"), "Your phone joined: play on it, this screen follows.", "ok");
      else if (message.event === "left") status($("pair-status"), "The phone left. Open the link on it again to carry on.", "warn");
    } else if (message.type === "level" && (!message.level || message.level === state.level.id)) {
      if (!state.phoneSeen) { state.phoneSeen = true; status($("pair-status"), "Your phone is playing: this screen follows it.", "ok"); }
      state.view.receive(message);
    }
  });
  socket.addEventListener("close", (event) => {
    if (event.code === 1000) return;
    if (retry > 6) { status($("pair-status"), "The room has closed. Pair again to carry on.", "warn"); $("pair").classList.remove("hidden"); $("pair").disabled = false; return; }
    setTimeout(() => watchRoom(code, retry + 1), Math.min(5000, 500 * 2 ** retry));
  });
}

$("hint").addEventListener("click", onBuyHint);
$("pair").addEventListener("click", onPair);
showAccountLink();
main();
