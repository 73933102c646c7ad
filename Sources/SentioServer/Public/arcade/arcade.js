// The motion arcade. Three ways in: the big screen (opens an arcade room, shows its code and QR
// code, draws the game from the room's messages, and tells each phone its colour, its score
// and what just happened), a phone that joined it (a controller: streams its motion sensors and
// shows what the big screen says), and a phone alone (streams and draws). The server fuses the
// samples (SentioMotion, 6D) and detects the throws; this page keeps the games' rules and draws.
import { socketURL } from "/js/stream.js";
import { api } from "/js/account.js";
import { relative, euler, advance, degrees, identity } from "/arcade/attitude.js";
import { Plane, Sky, Basketball, PLAYERS } from "/arcade/games.js";
import { Cube } from "/arcade/cube.js";
import { askMotionPermission, MotionSender } from "/arcade/motion.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const room = params.get("room")?.toUpperCase();
/** A stream silent for this long pauses its player (ms). */
const STALL_MS = 500;
/** The desktop extrapolates the attitude at most this far past the newest sample (s). */
const MAX_EXTRAPOLATION = 0.1;
const GAMES = { plane: "Plane", basketball: "Basketball", cube: "Cube" };
const HOW = {
  plane: "Tilt to fly: through the rings, around the clouds.",
  basketball: "Flick the phone up and toward the hoop.",
  cube: "Turn the phone: the cube turns with it.",
};

const state = window.sentioArcade = {
  mode: null, game: "plane", observations: 0, followed: null, controllers: [], paused: true, stalls: 0,
  players: new Map(), reference: null, referenceTime: null, last: null, lastAt: 0, latency: [], frameLatency: [],
  throwsSeen: 0, input: { missing: 0, out_of_order: 0, gaps: 0 }, log: [], planeLog: [], shots: [], sender: null, feedbackSent: [],
};
state.sky = new Sky();
let cube = null;

function say(id, text, tone = "") { $(id).textContent = text; $(id).className = `status ${tone}`; }
function log(text) {
  state.log.push(text);
  const item = document.createElement("li");
  item.textContent = `${new Date().toLocaleTimeString()} — ${text}`;
  $("log").prepend(item);
  while ($("log").children.length > 30) $("log").lastChild.remove();
}

// ---- Players ----------------------------------------------------------------------------

/** A player: one phone (its stream's controller id; "solo" for the phone alone), its attitude reference and its games. */
function addPlayer(id) {
  const used = new Set([...state.players.values()].map((p) => p.slot));
  const slot = PLAYERS.findIndex((_, i) => !used.has(i));
  if (slot < 0) return null;
  const { name, colour } = PLAYERS[slot];
  const player = {
    id, slot, number: slot + 1, name, colour, reference: null, referenceTime: null, last: null, lastAt: 0, lastSampleTime: null,
    seenEvents: new Map(), paused: true,
  };
  newGames(player);
  state.players.set(id, player);
  return player;
}

/** The player's plane and ball, fresh (a game that starts starts at zero). */
function newGames(player) {
  const { drag, factor, deadZone, speedPerG } = settings();
  player.plane = new Plane({ drag, factor, deadZone, colour: player.colour, x: [0.5, 0.3, 0.7, 0.4][player.slot] });
  player.ball = new Basketball({ speedPerG, colour: player.colour });
}

function settings() {
  const number = (id, fallback) => { const v = Number($(id).value); return Number.isFinite(v) && $(id).value !== "" ? v : fallback; };
  return {
    drag: number("drag", Plane.defaults.drag), factor: number("factor", Plane.defaults.factor),
    deadZone: (number("dead-zone", 5) * Math.PI) / 180, speedPerG: number("strength", 4.5),
  };
}

/** The first player still in the game: the cube follows its phone. */
function leader() { return [...state.players.values()].sort((a, b) => a.slot - b.slot)[0] || null; }

function score(player) {
  return state.game === "plane" ? player.plane.rings : state.game === "basketball" ? player.ball.baskets : 0;
}

/** Tells a phone what the big screen shows of it (only a room's phones: the solo page shows it itself). */
function tell(player, text, vibrate) {
  if (state.mode !== "desktop" || !state.socket || state.socket.readyState !== WebSocket.OPEN) return;
  const message = { type: "feedback", controller: player.id, player: player.number, colour: player.colour, game: state.game, score: score(player), text };
  if (vibrate) message.vibrate = vibrate;
  state.socket.send(JSON.stringify(message));
  state.feedbackSent.push(message);
  if (state.feedbackSent.length > 200) state.feedbackSent.shift();
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
  const code = opened.room.code, link = opened.joinURL;
  for (const id of ["code", "join-code"]) $(id).textContent = code;
  for (const id of ["qr", "join-qr"]) $(id).src = `/api/v1/rooms/${code}/qr.svg`;
  for (const id of ["join", "join-link"]) { $(id).href = link; $(id).textContent = link.replace(/^https?:\/\//, ""); $(id).title = link; }
  joinCard(true);
  $("paused").classList.add("hidden");
  say("status", "Waiting for a phone…");
  watch(code);
}

function watch(code, retry = 0) {
  const socket = state.socket = new WebSocket(socketURL(`/api/v1/rooms/${code}/events`));
  socket.addEventListener("open", () => {
    retry = 0;
    for (const player of state.players.values()) tell(player, HOW[state.game]);
  });
  socket.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message.type === "room") roomEvent(message);
    else if (message.type === "observation" && message.stream === "motion") observe(message);
    else if (message.type === "error") log(`The server refused a message to a phone: ${message.message}`);
  });
  socket.addEventListener("close", () => {
    say("status", "The connection to the room dropped; reconnecting…", "warn");
    setTimeout(() => watch(code, retry + 1), Math.min(5000, 500 * 2 ** retry));
  });
}

/** A phone joined or left. Up to four play at once, each with its colour. */
function roomEvent({ event, controller }) {
  if (!controller) return;
  if (event === "joined") {
    if (!state.controllers.includes(controller)) state.controllers.push(controller);
    if (state.players.has(controller)) return;
    const player = addPlayer(controller);
    if (!player) {
      log(`A fifth phone (${controller}) joined: the game is full.`);
      state.socket.send(JSON.stringify({ type: "feedback", controller, text: "The game is full (four players). Wait for a free place." }));
      return;
    }
    state.followed = leader().id;
    log(`Phone ${controller} joined: player ${player.number}, ${player.name}.`);
    say("status", `${player.name} joined. ${state.players.size === 1 ? "Tap Start on the phone." : `${state.players.size} players.`}`, "ok");
    tell(player, `You are ${player.name}.`);
    joinCard(false);
    showPlayers();
  } else if (event === "left") {
    state.controllers = state.controllers.filter((c) => c !== controller);
    const player = state.players.get(controller);
    if (!player) return;
    state.players.delete(controller);
    log(`Phone ${controller} (${player.name}) left.`);
    const next = leader();
    state.followed = next ? next.id : null;
    if (next && player.slot < next.slot) log(`${next.name} takes over the cube.`);
    if (!next) { joinCard(true); say("status", "The phone left; scan the code with a phone to play again.", "warn"); }
    showPlayers();
  }
}

/** The big join card on the stage until a phone joins; then the small code beside the game, for more players. */
function joinCard(show) {
  $("join-card").classList.toggle("hidden", !show);
  $("room").classList.toggle("hidden", show);
}

function showPlayers() {
  const list = $("players");
  list.replaceChildren(...[...state.players.values()].sort((a, b) => a.slot - b.slot).map((p) => {
    const item = document.createElement("li");
    item.style.setProperty("--player", p.colour);
    item.dataset.player = p.id;
    item.innerHTML = `<span class="swatch" aria-hidden="true"></span><span class="name"></span><span class="points"></span>`;
    item.querySelector(".name").textContent = p.name;
    return item;
  }));
  list.classList.toggle("hidden", state.players.size === 0 || state.mode === "solo");
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
        if (reply.type === "feedback") { feedback(reply); return; }
        $("controller-sent").textContent = String(state.sender.sent);
        const o = reply.observation;
        $("controller-attitude").textContent = `${o.pitch_deg.toFixed(0)}° / ${o.roll_deg.toFixed(0)}°`;
        if (!state.streaming) { state.streaming = true; say("controller-status", "Connected: watch the big screen.", "ok"); }
      },
      onState: (s, detail) => { if (s === "reconnecting") { state.streaming = false; say("controller-status", `Reconnecting… (${detail})`, "warn"); } },
    });
    say("controller-status", "Starting…");
    $("controller-start").classList.add("hidden");
    $("controller-recentre").classList.remove("hidden");
    $("controller-recentre").addEventListener("click", () => { state.sender.markNext("recentre"); say("controller-status", "Re-centred: this is level now.", "ok"); });
    noEventsWarning("controller-status");
  });
}

/** The big screen's word to this phone: its colour and name, the game, the score, what happened. */
function feedback(message) {
  state.feedback = message;
  const pad = $("pad");
  if (message.colour) { pad.style.setProperty("--player", message.colour); pad.classList.add("coloured"); }
  if (message.player) $("pad-player").textContent = `Player ${message.player} · ${PLAYERS[message.player - 1]?.name || ""}`;
  if (message.game) { $("pad-game").textContent = GAMES[message.game]; $("pad-how").textContent = HOW[message.game]; }
  if (typeof message.score === "number") $("pad-score").textContent = String(message.score);
  if (message.text) {
    $("pad-event").textContent = message.text;
    $("pad-event").classList.remove("pop"); void $("pad-event").offsetWidth; $("pad-event").classList.add("pop");
  }
  // Vibration where the browser has it (Android's Chrome and Firefox; Safari on iPhone has none).
  if (message.vibrate && typeof navigator.vibrate === "function") navigator.vibrate(message.vibrate);
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
      onReply: (reply) => (reply.type === "error" ? say("status", reply.message, "warn") : reply.type === "observation" ? observe(reply) : null),
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
  const id = message.controller || "solo";
  let player = state.players.get(id);
  if (!player) {
    // A phone whose joined event came before this page watched the room (or the solo phone).
    if (state.mode === "desktop") roomEvent({ event: "joined", controller: id });
    else addPlayer(id);
    player = state.players.get(id);
    if (!player) return;
  }
  const o = message.observation;
  const now = performance.now();
  if (player.paused) {
    if (player.last) log(`${player.name}'s phone is back: playing.`);
    player.paused = false;
  }
  state.observations += 1;
  if (!player.reference) { player.reference = o.quaternion; player.referenceTime = o.time; }
  const dt = player.lastSampleTime === null ? 1 / 60 : o.time - player.lastSampleTime;
  player.lastSampleTime = o.time;
  player.last = o; player.lastAt = now;
  const first = leader() === player;
  if (first) {
    state.followed = id; state.last = o; state.lastAt = now; state.fresh = true;
    state.reference = player.reference; state.referenceTime = player.referenceTime;
  }
  if (first && typeof message.sentAt === "number") {
    state.lastSentAt = message.sentAt;
    // Sample → this page's socket; the frame that draws it comes next (frameLatency).
    state.latency.push(Date.now() - message.sentAt);
    if (state.latency.length > 600) state.latency.shift();
  }
  if (message.input) {
    for (const key of Object.keys(state.input)) state.input[key] += message.input[key] || 0;
    log(`Input repaired by the server: ${describeInput(message.input)}.`);
  }
  if (message.mark === "recentre") recentre(player);
  // Only the game on screen runs.
  if (state.game === "plane") {
    const angles = euler(relative(o.quaternion, player.reference));
    const plane = player.plane;
    const { drag, factor, deadZone } = settings();
    Object.assign(plane, { drag, factor, deadZone });
    plane.steer(angles.pitch, angles.roll, dt);
    if (first) {
      state.planeLog.push({ time: o.time, pitch: angles.pitch, roll: angles.roll, dt, x: plane.x, y: plane.y, drag: plane.drag, factor: plane.factor, deadZone: plane.deadZone });
      if (state.planeLog.length > 20000) state.planeLog.shift();
    }
  }
  // The server repeats the last second's gestures in every reply (a message may be lost when
  // this page falls behind): each is taken once, known by its time and kind.
  for (const e of message.recentEvents || o.events) {
    const key = `${e.gesture}@${e.t}`;
    if (player.seenEvents.has(key)) continue;
    player.seenEvents.set(key, e.t);
    for (const [k, t] of player.seenEvents) if (o.time - t > 5) player.seenEvents.delete(k);
    if (e.gesture !== "throw_any" || state.game !== "basketball") continue;
    // The flick's peak user acceleration across (x) and up (y) the phone's screen, in g.
    const [fx, fy] = [e.force_g * e.direction[0], e.force_g * e.direction[1]];
    player.ball.speedPerG = settings().speedPerG;
    if (!player.ball.throwFlick(fx, fy)) continue;
    state.throwsSeen += 1;
    const shot = player.ball.shot;
    log(`${player.name} threw: ${Math.hypot(fx, fy).toFixed(2)} g, ${shot.angle.toFixed(0)}° up.`);
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
  $("recentre").addEventListener("click", () => { for (const p of state.players.values()) recentre(p); });
  const fromURL = params.get("game");
  if (GAMES[fromURL]) document.querySelector(`input[name="game"][value="${fromURL}"]`).checked = true;
  pick(GAMES[fromURL] ? fromURL : "plane");
  let lastCount = 0, lastTick = performance.now();
  setInterval(() => {
    const now = performance.now();
    $("rate").textContent = String(Math.round(((state.observations - lastCount) * 1000) / (now - lastTick)));
    lastCount = state.observations; lastTick = now;
  }, 1000);
  requestAnimationFrame(frame);
}

/** Starts `game`: every player's plane and ball fresh, the scores at zero. */
function pick(game) {
  state.game = game;
  state.sky = new Sky();
  for (const player of state.players.values()) { newGames(player); tell(player, HOW[game]); }
  $("board").classList.toggle("hidden", game === "cube");
  $("cube-host").classList.toggle("hidden", game !== "cube");
  $("how").textContent = HOW[game];
  log(`Game: ${game}.`);
}

/** Takes the phone's attitude now as the player's reference: the cube faces front, the plane flies level. */
function recentre(player) {
  if (!player?.last) { say("status", "Nothing to re-centre on yet: start the phone first.", "warn"); return; }
  player.reference = player.last.quaternion; player.referenceTime = player.last.time;
  if (leader() === player) { state.reference = player.reference; state.referenceTime = player.referenceTime; }
  player.plane.vx = 0; player.plane.vy = 0;
  log("Re-centred.");
}

/** The HUD's line: each player's score in their colour (never negative: rings and baskets only count up). */
function hud() {
  const players = [...state.players.values()].sort((a, b) => a.slot - b.slot);
  const text = (p) => state.game === "plane" ? `${p.plane.rings} ring${p.plane.rings === 1 ? "" : "s"}${p.plane.clouds ? ` · ${p.plane.clouds} cloud${p.plane.clouds === 1 ? "" : "s"}` : ""}`
    : `${p.ball.baskets} basket${p.ball.baskets === 1 ? "" : "s"} of ${p.ball.throws}`;
  const line = players.map((p) => (players.length > 1 || state.mode === "desktop" ? `${p.name} ${text(p)}` : text(p))).join("  ·  ");
  for (const p of players) {
    const item = document.querySelector(`#players [data-player="${p.id}"] .points`);
    if (item) item.textContent = state.game === "cube" ? "" : text(p);
  }
  return state.game === "basketball" && !players.length ? "0 baskets of 0" : line;
}

let previousFrame = performance.now();
function frame(now) {
  requestAnimationFrame(frame);
  const dt = Math.min(0.05, (now - previousFrame) / 1000);
  previousFrame = now;
  // A silent phone pauses its player; the game pauses when no player is sending.
  for (const p of state.players.values()) {
    if (!p.paused && p.last && now - p.lastAt > STALL_MS) {
      p.paused = true; state.stalls += 1;
      log(`${p.name}'s phone stopped sending: paused.`);
    }
  }
  const anyone = [...state.players.values()].some((p) => !p.paused);
  const wasPaused = state.paused;
  state.paused = !anyone;
  if (wasPaused && !state.paused) say("status", state.mode === "solo" ? "Playing." : `Playing: ${state.players.size} player${state.players.size === 1 ? "" : "s"}.`, "ok");
  const showPause = state.paused && state.observations > 0;
  $("paused").classList.toggle("hidden", !(showPause || (state.mode === "solo" && state.observations === 0)));
  if (showPause) {
    $("paused").textContent = state.players.size > 1 ? "Paused: the phones stopped sending. Play resumes when one does."
      : "Paused: the phone stopped sending. It resumes when the phone does.";
  }
  if (state.fresh && state.lastSentAt !== undefined) {
    // Sample timestamp (the phone's clock) → this frame (the desktop's): the same clock on one machine.
    const ms = Date.now() - state.lastSentAt;
    state.frameLatency.push(ms); if (state.frameLatency.length > 600) state.frameLatency.shift();
    state.fresh = false;
  }
  const recent = state.frameLatency.slice(-60).sort((a, b) => a - b);
  const latencyText = recent.length ? `${Math.round(recent[Math.floor(recent.length / 2)])} ms` : "–";
  $("latency").textContent = latencyText;
  $("hud-latency").textContent = recent.length ? latencyText : "";

  const canvas = $("board"), ratio = window.devicePixelRatio || 1, dark = matchMedia("(prefers-color-scheme: dark)").matches;
  const players = [...state.players.values()].sort((a, b) => a.slot - b.slot);
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
    if (!state.paused) {
      for (const { plane, kind } of state.sky.advance(dt, players.filter((p) => !p.paused).map((p) => p.plane))) {
        const player = players.find((p) => p.plane === plane);
        tell(player, kind === "ring" ? "Ring!" : "Cloud: steer around them", kind === "ring" ? [60] : [40, 60, 40]);
      }
    }
    state.sky.draw(ctx, canvas.width, canvas.height, dark);
    for (const p of players) p.plane.draw(ctx, canvas.width, canvas.height, state.sky.time, p.paused);
  } else {
    Basketball.drawCourt(ctx, canvas.width, canvas.height, dark);
    for (const p of players) {
      const verdict = state.paused ? null : p.ball.step(dt);
      if (verdict) {
        state.shots.push({ player: p.number, flick: p.ball.shot.flick, angle: p.ball.shot.angle, result: verdict.result, hint: verdict.hint });
        log(`${p.name}: ${verdict.hint}`);
        state.lastVerdict = verdict;
        tell(p, verdict.hint, verdict.result === "basket" ? [80, 60, 160] : null);
      }
      p.ball.draw(ctx, canvas.width, canvas.height, p.paused);
    }
    const last = players.map((p) => p.ball.lastShot).find(Boolean);
    $("shot").textContent = last && players.length === 1 ? last.hint : "";
  }
  const first = players[0];
  $("score").textContent = first ? String(state.game === "plane" ? first.plane.rings : `${first.ball.baskets}/${first.ball.throws}`) : "0";
  $("hud-score").textContent = hud();
  if (state.last && state.reference) {
    const e = euler(relative(state.last.quaternion, state.reference));
    $("angles").textContent = `pitch ${degrees(e.pitch).toFixed(0)}° roll ${degrees(e.roll).toFixed(0)}°`;
  }
}

if (room) controllerPage(room);
else if (params.get("mode") === "solo") solo();
else if (params.get("mode") === "desktop") desktop();
else choose();
