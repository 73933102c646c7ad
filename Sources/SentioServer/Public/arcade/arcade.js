// The motion arcade. Three ways in: the big screen (opens an arcade room, shows its code and QR
// code, draws the game from the room's messages), the phone that joined it (streams its motion
// sensors), and a phone alone (streams and draws). The server fuses the samples (SentioMotion,
// 6D) and detects the throws; this page keeps the games' rules and draws.
import { socketURL } from "/js/stream.js";
import { api } from "/js/account.js";
import { relative, euler, advance, degrees, identity } from "/arcade/attitude.js";
import { Plane, Basketball } from "/arcade/games.js";
import { Cube } from "/arcade/cube.js";
import { askMotionPermission, MotionSender } from "/arcade/motion.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const room = params.get("room")?.toUpperCase();
/** A stream silent for this long pauses the game (ms). */
const STALL_MS = 500;
/** The desktop extrapolates the attitude at most this far past the newest sample (s). */
const MAX_EXTRAPOLATION = 0.1;

const state = window.sentioArcade = {
  mode: null, game: "plane", observations: 0, followed: null, controllers: [], paused: true, stalls: 0,
  reference: null, referenceTime: null, last: null, lastAt: 0, lastSampleTime: null, latency: [], frameLatency: [],
  throwsSeen: 0, remembered: null, seenEvents: new Map(), input: { missing: 0, out_of_order: 0, gaps: 0 }, log: [], planeLog: [], sender: null,
};
const plane = state.plane = new Plane();
const basketball = state.basketball = new Basketball();
let cube = null;

function say(id, text, tone = "") { $(id).textContent = text; $(id).className = `status ${tone}`; }
function log(text) {
  state.log.push(text);
  const item = document.createElement("li");
  item.textContent = `${new Date().toLocaleTimeString()} — ${text}`;
  $("log").prepend(item);
  while ($("log").children.length > 30) $("log").lastChild.remove();
}

// ---- Modes ------------------------------------------------------------------------------

function choose() {
  state.mode = "choose";
  $("choose").classList.remove("hidden");
  $("play-paired").addEventListener("click", () => { $("choose").classList.add("hidden"); desktop(); });
  $("play-solo").addEventListener("click", () => { $("choose").classList.add("hidden"); solo(); });
}

async function desktop() {
  state.mode = "desktop";
  showGame();
  say("status", "Opening a room…");
  let opened;
  try {
    opened = await api("/api/v1/rooms", { method: "POST", json: { purpose: "arcade" } });
  } catch (error) {
    say("status", `Could not open a room: ${error.message}`, "bad");
    return;
  }
  const code = opened.room.code;
  $("room").classList.remove("hidden");
  $("code").textContent = code;
  $("qr").src = `/api/v1/rooms/${code}/qr.svg`;
  $("join").href = opened.joinURL;
  $("join").textContent = opened.joinURL;
  $("paused").textContent = "Scan the code with your phone to start.";
  say("status", "Waiting for the phone…");
  watch(code);
}

function watch(code, retry = 0) {
  const socket = new WebSocket(socketURL(`/api/v1/rooms/${code}/events`));
  socket.addEventListener("open", () => { retry = 0; });
  socket.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message.type === "room") roomEvent(message);
    else if (message.type === "observation" && message.stream === "motion") observe(message);
  });
  socket.addEventListener("close", () => {
    say("status", "The connection to the room dropped; reconnecting…", "warn");
    setTimeout(() => watch(code, retry + 1), Math.min(5000, 500 * 2 ** retry));
  });
}

/** A phone joined or left. The room follows one phone: the first; another takes over only when it leaves. */
function roomEvent({ event, controller }) {
  if (!controller) return;
  if (event === "joined") {
    if (!state.controllers.includes(controller)) state.controllers.push(controller);
    if (!state.followed) {
      state.followed = controller;
      log(`Phone ${controller} joined: it controls the game.`);
      say("status", "The phone joined. Tap Start on it.", "ok");
    } else if (controller !== state.followed) {
      log(`A second phone (${controller}) joined: ignored while ${state.followed} plays.`);
      say("status", `A second phone joined; the first one keeps control.`, "warn");
    }
  } else if (event === "left") {
    state.controllers = state.controllers.filter((c) => c !== controller);
    log(`Phone ${controller} left.`);
    if (controller === state.followed) {
      state.followed = state.controllers[0] || null;
      if (state.followed) log(`Phone ${state.followed} takes over.`);
      say("status", state.followed ? "The other phone takes over." : "The phone left; open the link on a phone to play again.", "warn");
    }
  }
}

function controllerPage(code) {
  state.mode = "controller";
  $("controller").classList.remove("hidden");
  $("controller-code").textContent = code;
  $("controller-start").addEventListener("click", async () => {
    $("controller-start").disabled = true;
    const answer = await askMotionPermission();
    if (answer !== "granted") { say("controller-status", answer, "bad"); $("controller-start").disabled = false; return; }
    state.sender = new MotionSender(`/api/v1/stream/motion?room=${encodeURIComponent(code)}`, {
      onReply: (reply) => {
        if (reply.type === "error") { say("controller-status", reply.message, "warn"); return; }
        $("controller-sent").textContent = String(state.sender.sent);
        const o = reply.observation;
        $("controller-attitude").textContent = `${o.pitch_deg.toFixed(0)}° / ${o.roll_deg.toFixed(0)}°`;
        say("controller-status", "Streaming to the big screen.", "ok");
      },
      onState: (s, detail) => { if (s === "reconnecting") say("controller-status", `Reconnecting… (${detail})`, "warn"); },
    });
    say("controller-status", "Starting…");
    $("controller-start").textContent = "Streaming…";
    $("controller-recentre").disabled = false;
    $("controller-recentre").addEventListener("click", () => { state.sender.markNext("recentre"); say("controller-status", "Re-centred.", "ok"); });
    noEventsWarning("controller-status");
  });
}

function solo() {
  state.mode = "solo";
  showGame();
  $("solo-start").classList.remove("hidden");
  $("paused").textContent = "Tap Start the motion sensors.";
  $("solo-start").addEventListener("click", async () => {
    $("solo-start").disabled = true;
    const answer = await askMotionPermission();
    if (answer !== "granted") { say("status", answer, "bad"); $("solo-start").disabled = false; return; }
    state.sender = new MotionSender("/api/v1/stream/motion", {
      onReply: (reply) => (reply.type === "error" ? say("status", reply.message, "warn") : observe(reply)),
      onState: (s, detail) => { if (s === "reconnecting") say("status", `Reconnecting… (${detail})`, "warn"); },
    });
    $("solo-start").classList.add("hidden");
    say("status", "Starting…");
    noEventsWarning("status");
  });
}

/** Says so when no motion event came within two seconds of starting. */
function noEventsWarning(id) {
  setTimeout(() => {
    if (state.sender && state.sender.events === 0) say(id, "No motion events came: this device may have no motion sensors, or the browser blocks them.", "bad");
  }, 2000);
}

// ---- Observations -----------------------------------------------------------------------

/** One reply of the motion stream: the fused attitude after the newest sample, and its gestures. */
function observe(message) {
  if (message.controller && state.followed && message.controller !== state.followed) return;
  if (message.controller && !state.followed) state.followed = message.controller;
  const o = message.observation;
  const now = performance.now();
  if (state.paused && state.observations > 0) log("The phone is back: playing.");
  if (state.paused) say("status", state.mode === "solo" ? "Playing." : `Playing with phone ${state.followed || ""}.`, "ok");
  state.paused = false;
  state.observations += 1;
  if (!state.reference) { state.reference = o.quaternion; state.referenceTime = o.time; }
  const dt = state.lastSampleTime === null ? 1 / 60 : o.time - state.lastSampleTime;
  state.lastSampleTime = o.time;
  state.last = o; state.lastAt = now; state.fresh = true;
  if (typeof message.sentAt === "number") {
    state.lastSentAt = message.sentAt;
    // Sample → this page's socket; the frame that draws it comes next (frameLatency).
    state.latency.push(Date.now() - message.sentAt);
    if (state.latency.length > 600) state.latency.shift();
  }
  if (message.input) {
    for (const key of Object.keys(state.input)) state.input[key] += message.input[key] || 0;
    log(`Input repaired by the server: ${describeInput(message.input)}.`);
  }
  if (message.mark === "recentre") recentre();
  const angles = euler(relative(o.quaternion, state.reference));
  plane.drag = Number($("drag").value) || 0.9; plane.factor = Number($("factor").value) || 0;
  plane.step(angles.pitch, angles.roll, dt);
  state.planeLog.push({ time: o.time, pitch: angles.pitch, roll: angles.roll, x: plane.x, y: plane.y, drag: plane.drag, factor: plane.factor });
  if (state.planeLog.length > 20000) state.planeLog.shift();
  // The original throw remembers the user acceleration while it is above 1 g up the phone and
  // throws with it when it falls back; the server's detector says when.
  const [ux, uy] = o.user_acceleration;
  if (uy > 1) state.remembered = [ux, uy];
  // The server repeats the last second's gestures in every reply (a message may be lost when
  // this page falls behind): each is taken once, known by its time and kind.
  for (const e of message.recentEvents || o.events) {
    const key = `${e.gesture}@${e.t}`;
    if (state.seenEvents.has(key)) continue;
    state.seenEvents.set(key, e.t);
    for (const [k, t] of state.seenEvents) if (o.time - t > 5) state.seenEvents.delete(k);
    const anyDirection = $("any-direction").checked;
    if (e.gesture === "throw" && !anyDirection) {
      const [ax, ay] = state.remembered || [0, e.force_g];
      basketball.push = Number($("push").value) || 0.1;
      basketball.throwBall(ax, ay);
      state.throwsSeen += 1;
      log(`Throw: ${ay.toFixed(2)} g up, ${ax.toFixed(2)} g across.`);
      state.remembered = null;
    } else if (e.gesture === "throw_any" && anyDirection) {
      const [dx, dy] = e.direction;
      basketball.push = Number($("push").value) || 0.1;
      basketball.throwBall(e.force_g * dx, e.force_g * dy);
      state.throwsSeen += 1;
      log(`Throw (any direction): ${e.force_g.toFixed(2)} g.`);
    }
  }
}

function describeInput(input) {
  const parts = [];
  if (input.missing) parts.push(`${input.missing} sample(s) with missing values dropped`);
  if (input.out_of_order) parts.push(`${input.out_of_order} repeated or backward time(s) dropped`);
  if (input.gaps) parts.push(`${input.gaps} gap(s) in time closed`);
  return parts.join(", ");
}

// ---- Drawing ----------------------------------------------------------------------------

function showGame() {
  $("game").classList.remove("hidden");
  cube = state.cube = new Cube($("cube-host"));
  for (const radio of document.querySelectorAll('input[name="game"]')) {
    radio.addEventListener("change", () => { if (radio.checked) pick(radio.value); });
  }
  $("recentre").addEventListener("click", recentre);
  const fromURL = params.get("game");
  if (["plane", "basketball", "cube"].includes(fromURL)) {
    document.querySelector(`input[name="game"][value="${fromURL}"]`).checked = true;
    pick(fromURL);
  }
  let lastCount = 0, lastTick = performance.now();
  setInterval(() => {
    const now = performance.now();
    $("rate").textContent = String(Math.round(((state.observations - lastCount) * 1000) / (now - lastTick)));
    lastCount = state.observations; lastTick = now;
  }, 1000);
  requestAnimationFrame(frame);
}

function pick(game) {
  state.game = game;
  $("board").classList.toggle("hidden", game === "cube");
  $("cube-host").classList.toggle("hidden", game !== "cube");
  log(`Game: ${game}.`);
}

/** Takes the phone's attitude now as the reference: the cube faces front, the plane flies level. */
function recentre() {
  if (!state.last) { say("status", "Nothing to re-centre on yet: start the phone first.", "warn"); return; }
  state.reference = state.last.quaternion; state.referenceTime = state.last.time;
  plane.vx = 0; plane.vy = 0;
  log("Re-centred.");
}

let previousFrame = performance.now();
function frame(now) {
  requestAnimationFrame(frame);
  const dt = Math.min(0.05, (now - previousFrame) / 1000);
  previousFrame = now;
  // A silent stream pauses the game; the next sample resumes it.
  if (!state.paused && state.last && now - state.lastAt > STALL_MS) {
    state.paused = true; state.stalls += 1;
    log("The phone stopped sending: paused.");
  }
  $("paused").classList.toggle("hidden", !state.paused);
  if (state.paused && state.observations > 0) $("paused").textContent = "Paused: the phone stopped sending. It resumes when the phone does.";
  if (state.fresh && state.lastSentAt !== undefined) {
    // Sample timestamp (the phone's clock) → this frame (the desktop's): the same clock on one machine.
    const ms = Date.now() - state.lastSentAt;
    state.frameLatency.push(ms); if (state.frameLatency.length > 600) state.frameLatency.shift();
    state.fresh = false;
  }
  const recent = state.frameLatency.slice(-60).sort((a, b) => a - b);
  const latencyText = recent.length ? `${Math.round(recent[Math.floor(recent.length / 2)])} ms` : "–";
  $("latency").textContent = latencyText;
  $("hud-latency").textContent = recent.length ? `latency ${latencyText}` : "";

  const canvas = $("board"), ratio = window.devicePixelRatio || 1, dark = matchMedia("(prefers-color-scheme: dark)").matches;
  if (!state.paused) basketball.step(dt);
  if (state.game === "cube") {
    let q = identity;
    if (state.last && state.reference) {
      // Extrapolate from the newest sample to now with its rotation rate, so the cube moves as
      // the phone does rather than a network trip behind; never while paused.
      const ahead = state.paused ? 0 : Math.min(MAX_EXTRAPOLATION, Math.max(0, (now - state.lastAt) / 1000));
      q = relative(advance(state.last.quaternion, state.last.rotation_rate, ahead), state.reference);
      state.extrapolatedBy = ahead;
    }
    cube?.show(q);
    const e = euler(q);
    $("angles").textContent = `roll ${degrees(e.roll).toFixed(0)}° pitch ${degrees(e.pitch).toFixed(0)}° yaw ${degrees(e.yaw).toFixed(0)}°`;
    $("hud-score").textContent = `roll ${degrees(e.roll).toFixed(1)}°  pitch ${degrees(e.pitch).toFixed(1)}°  yaw ${degrees(e.yaw).toFixed(1)}°`;
    $("score").textContent = "–";
    return;
  }
  canvas.width = Math.round(canvas.clientWidth * ratio); canvas.height = Math.round(canvas.clientHeight * ratio);
  const ctx = canvas.getContext("2d");
  if (state.game === "plane") {
    plane.draw(ctx, canvas.width, canvas.height, dark);
    $("score").textContent = String(plane.score);
    $("hud-score").textContent = `rings ${plane.score}  ·  clouds hit ${plane.hits}`;
  } else {
    basketball.draw(ctx, canvas.width, canvas.height, dark);
    $("score").textContent = `${basketball.baskets}/${basketball.throws}`;
    $("hud-score").textContent = `baskets ${basketball.baskets} of ${basketball.throws} throws`;
  }
  if (state.last && state.reference) {
    const e = euler(relative(state.last.quaternion, state.reference));
    $("angles").textContent = `pitch ${degrees(e.pitch).toFixed(0)}° roll ${degrees(e.roll).toFixed(0)}°`;
  }
}

if (room) controllerPage(room);
else if (params.get("mode") === "solo") solo();
else if (params.get("mode") === "desktop") desktop();
else choose();
