// Pairing: the desktop opens a room and watches it; the phone joins it by code and streams its
// camera (faces) or motion sensors into it. The server carries the phone's replies to the
// desktop, even when the two reached different servers sharing one database.
import { StreamClient, socketURL } from "/js/stream.js";
import { draw } from "/js/draw.js";
import { openCamera, grabJPEG } from "/js/camera.js";
import { api } from "/js/account.js";

const $ = (id) => document.getElementById(id);
const room = new URLSearchParams(location.search).get("room")?.toUpperCase();
window.sentioPair = { events: [], joined: false, observations: 0 };

function say(id, text, tone = "") { $(id).textContent = text; $(id).className = `status ${tone}`; }

async function desktop() {
  $("desktop").classList.remove("hidden");
  $("enter").classList.remove("hidden");
  for (const button of document.querySelectorAll("[data-purpose]")) {
    button.addEventListener("click", () => openRoom(button.dataset.purpose));
  }
}

async function openRoom(purpose) {
  say("desktop-status", "Opening a room…");
  let opened;
  try {
    // Through the API module: a signed-in user's POST must carry the session's CSRF token
    // (a raw fetch left it out, and a signed-in user got 403).
    opened = await api("/api/v1/rooms", { method: "POST", json: { purpose } });
  } catch (error) {
    say("desktop-status", `Could not open a room: ${error.message}`, "bad");
    return;
  }
  const code = opened.room.code;
  $("open-buttons").classList.add("hidden");
  $("enter").classList.add("hidden");
  $("room").classList.remove("hidden");
  $("code").textContent = code;
  $("qr").src = `/api/v1/rooms/${code}/qr.svg`;
  $("join").href = opened.joinURL;
  $("join").textContent = opened.joinURL;
  say("desktop-status", "Waiting for the phone…");
  watch(code);
}

function watch(code) {
  let count = 0;
  const socket = new WebSocket(socketURL(`/api/v1/rooms/${code}/events`));
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    window.sentioPair.events.push(message.type === "observation" ? { type: "observation", stream: message.stream } : message);
    if (message.type === "room" && message.event === "joined") {
      window.sentioPair.joined = true;
      say("desktop-status", `The phone joined (${message.stream}).`, "ok");
      log(`Phone joined: ${message.stream}`);
      $("remote-placeholder").textContent = "Connected: waiting for the first picture…";
    } else if (message.type === "observation") {
      window.sentioPair.observations += 1;
      $("messages").textContent = String(++count);
      $("remote-placeholder").classList.add("hidden");
      if (message.stream === "motion") {
        const o = message.observation;
        $("last").textContent = `roll ${o.roll_deg.toFixed(0)}°, pitch ${o.pitch_deg.toFixed(0)}°, yaw ${o.yaw_deg.toFixed(0)}°`;
        for (const e of o.events) log(`Gesture: ${e.gesture}`);
        drawAttitude($("remote"), o);
      } else {
        const n = (message.observation.faces || []).length;
        $("last").textContent = `${n} face${n === 1 ? "" : "s"}`;
        draw($("remote"), message.stream, message.observation);
      }
    }
  });
  socket.addEventListener("close", () => say("desktop-status", "The connection to the room closed; open a new room.", "warn"));
}

function log(text) {
  const item = document.createElement("li");
  item.textContent = `${new Date().toLocaleTimeString()} — ${text}`;
  $("log").prepend(item);
}

/** A level and a compass needle from the phone's attitude. */
function drawAttitude(canvas, o) {
  const ratio = window.devicePixelRatio || 1;
  canvas.width = canvas.clientWidth * ratio; canvas.height = canvas.clientHeight * ratio;
  const ctx = canvas.getContext("2d"), w = canvas.width, h = canvas.height, r = Math.min(w, h) * 0.35;
  ctx.clearRect(0, 0, w, h);
  ctx.save(); ctx.translate(w / 2, h / 2);
  ctx.strokeStyle = "rgba(255,255,255,0.5)"; ctx.lineWidth = 2 * ratio;
  ctx.beginPath(); ctx.arc(0, 0, r, 0, 2 * Math.PI); ctx.stroke();
  const [gx, gy] = o.gravity;
  ctx.fillStyle = "rgba(99,230,190,0.95)";
  ctx.beginPath(); ctx.arc(gx * r, -gy * r, 12 * ratio, 0, 2 * Math.PI); ctx.fill();
  ctx.rotate((-o.yaw_deg * Math.PI) / 180);
  ctx.strokeStyle = "rgba(255,90,120,0.95)"; ctx.beginPath(); ctx.moveTo(0, 0); ctx.lineTo(0, -r * 0.9); ctx.stroke();
  ctx.restore();
}

async function phone(code) {
  $("phone").classList.remove("hidden");
  $("phone-code").textContent = code;
  let purpose;
  try {
    purpose = (await api(`/api/v1/rooms/${encodeURIComponent(code)}`)).purpose;
  } catch (error) {
    say("phone-status", `This room is not open: ${error.message}. Ask for a new code.`, "bad");
    $("phone-start").disabled = true;
    return;
  }
  $("phone-lead").textContent = purpose === "motion"
    ? "Your phone's motion sensors will steer what the other screen shows. Hold it in your hand."
    : "Your camera will stream to the other screen. Point it at your face.";
  $("phone-start").textContent = purpose === "motion" ? "Start the motion sensors" : "Start the camera";
  $("phone-start").addEventListener("click", () => (purpose === "motion" ? streamMotion(code) : streamCamera(code)));
}

async function streamCamera(code) {
  $("phone-start").disabled = true;
  const video = $("video"), grab = document.createElement("canvas");
  try { await openCamera(video); } catch (error) { say("phone-status", error.message, "bad"); $("phone-start").disabled = false; return; }
  let sent = 0, sentAt = 0, inFlight = false;
  const client = new StreamClient(`/api/v1/stream/faces?room=${code}`, {
    onMessage: (reply) => {
      inFlight = false;
      if (reply.type === "observation") {
        $("phone-rtt").textContent = `${Math.round(performance.now() - sentAt)} ms`;
        draw($("overlay"), "faces", reply.observation);
        say("phone-status", "Streaming to the other screen.", "ok");
      } else if (reply.type === "error") say("phone-status", reply.message, "warn");
      requestAnimationFrame(next);
    },
    onState: (s, detail) => { if (s === "open") next(); else if (s === "reconnecting") say("phone-status", `Reconnecting… (${detail})`, "warn"); },
  });
  async function next() {
    if (inFlight || !client.isOpen) return;
    inFlight = true;
    const blob = await grabJPEG(video, grab);
    sentAt = performance.now();
    if (client.send(blob)) $("sent").textContent = String(++sent); else inFlight = false;
  }
}

async function streamMotion(code) {
  $("phone-start").disabled = true;
  if (typeof DeviceMotionEvent === "undefined") { say("phone-status", "This browser has no motion sensors.", "bad"); return; }
  if (typeof DeviceMotionEvent.requestPermission === "function") {
    const answer = await DeviceMotionEvent.requestPermission().catch(() => "denied");
    if (answer !== "granted") { say("phone-status", "Motion permission was refused; allow it in the browser's settings.", "bad"); $("phone-start").disabled = false; return; }
  }
  let batch = [], sent = 0, lastT = -Infinity;
  const client = new StreamClient(`/api/v1/stream/motion?room=${code}`, {
    onMessage: (reply) => { if (reply.type === "error") say("phone-status", reply.message, "warn"); else say("phone-status", "Streaming motion to the other screen.", "ok"); },
  });
  window.addEventListener("devicemotion", (event) => {
    const a = event.accelerationIncludingGravity, r = event.rotationRate;
    if (!a || !r || a.x === null || r.alpha === null || event.timeStamp <= lastT) return;
    lastT = event.timeStamp;
    batch.push({ t: event.timeStamp, accelerationIncludingGravity: { x: a.x, y: a.y, z: a.z }, rotationRate: { alpha: r.alpha, beta: r.beta, gamma: r.gamma } });
  });
  setInterval(() => {
    if (!batch.length) return;
    if (client.send({ samples: batch })) { sent += batch.length; $("sent").textContent = String(sent); }
    batch = [];
  }, 50);
}

$("enter").addEventListener("submit", (event) => {
  event.preventDefault();
  location.search = `?room=${encodeURIComponent($("code-input").value.trim().toUpperCase())}`;
});

if (room) phone(room); else desktop();
