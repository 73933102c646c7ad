// The Lens: camera frames to /api/v1/stream/{faces|hands|pose}, the observations drawn back.
// One frame in flight at a time: the next is grabbed when the previous reply arrives, so the
// picture and the drawing stay together and a slow network never builds a queue.
import { StreamClient } from "/js/stream.js";
import { draw } from "/js/draw.js";
import { openCamera, grabJPEG } from "/js/camera.js";

const $ = (id) => document.getElementById(id);
const video = $("video"), overlay = $("overlay"), grab = document.createElement("canvas");
const state = { kind: "faces", client: null, sentAt: 0, inFlight: false, times: [], running: false };

/** What tests read: the last observation and the exact JPEG bytes it answered. */
window.sentioLens = { last: null, lastFrame: null, lastKind: null, frames: 0, first: null, firstFrame: null };

function status(text, tone = "") {
  $("status").textContent = text;
  $("status").className = `status ${tone}`;
}

function connect() {
  state.client?.close();
  state.inFlight = false;
  state.client = new StreamClient(`/api/v1/stream/${state.kind}`, {
    onMessage: onReply,
    onState: (s, detail) => {
      if (s === "open") { status("Connected.", "ok"); sendNext(); }
      else if (s === "reconnecting") status(`Reconnecting… (${detail})`, "warn");
      else status("Connecting…");
    },
  });
}

let pendingFrame = null;
async function sendNext() {
  if (!state.running || state.inFlight || !state.client?.isOpen || video.readyState < 2) return;
  state.inFlight = true;
  const blob = await grabJPEG(video, grab);
  pendingFrame = blob;
  state.sentAt = performance.now();
  if (!state.client.send(blob)) state.inFlight = false;
}

function onReply(reply) {
  state.inFlight = false;
  const now = performance.now();
  if (reply.type === "observation") {
    window.sentioLens.last = reply.observation;
    window.sentioLens.lastKind = reply.stream;
    window.sentioLens.lastFrame = pendingFrame;
    window.sentioLens.frames += 1;
    if (!window.sentioLens.first) { window.sentioLens.first = reply.observation; window.sentioLens.firstFrame = pendingFrame; }
    draw(overlay, reply.stream, reply.observation);
    state.times.push(now);
    while (state.times.length && now - state.times[0] > 2000) state.times.shift();
    $("fps").textContent = state.times.length > 1 ? (1000 * (state.times.length - 1) / (now - state.times[0])).toFixed(1) : "–";
    $("rtt").textContent = `${Math.round(now - state.sentAt)} ms`;
    $("server").textContent = `${reply.serverMs.toFixed(0)} ms`;
    $("dropped").textContent = String(reply.dropped);
    const count = (reply.observation.faces || reply.observation.hands || reply.observation.poses || []).length;
    const noun = { faces: "face", hands: "hand", pose: "body" }[reply.stream];
    status(count ? `${count} ${noun}${count > 1 ? (noun === "body" ? "" : "s") : ""} in view.` : `No ${noun} in view.`, "ok");
  } else if (reply.type === "error") {
    status(`The server could not use a frame: ${reply.message}`, "warn");
  }
  requestAnimationFrame(sendNext);
}

$("start").addEventListener("click", async () => {
  $("start").disabled = true;
  status("Starting the camera…");
  try {
    await openCamera(video);
  } catch (error) {
    status(error.message, "bad");
    $("start").disabled = false;
    return;
  }
  $("placeholder").classList.add("hidden");
  $("start").textContent = "Camera on";
  state.running = true;
  connect();
});

for (const input of document.querySelectorAll('input[name="kind"]')) {
  input.addEventListener("change", () => {
    state.kind = input.value;
    draw(overlay, state.kind, null);
    if (state.running) { window.sentioLens.first = null; window.sentioLens.frames = 0; connect(); }
  });
}
$("mirror").addEventListener("change", (e) => $("stage").classList.toggle("mirrored", e.target.checked));
window.addEventListener("offline", () => status("You are offline: frames will resume when the network is back.", "warn"));
window.addEventListener("resize", () => draw(overlay, state.kind, window.sentioLens.last));
if (!window.isSecureContext) $("secure-note").classList.remove("hidden");
