// The gestures page: the camera's frames go to the server's gestures stream, which tracks one
// hand and answers with its joints, the pinch (start, held, release), the pen, the strokes
// (smoothed, gaps filled) and the digit they look like. The page draws them over the mirrored
// (selfie) view: coordinates are the camera's, and the stage mirrors video and drawing alike.
import { StreamClient } from "/js/stream.js";
import { fit } from "/js/draw.js";
import { openCamera, grabJPEG } from "/js/camera.js";

const $ = (id) => document.getElementById(id);
const BONES = [[0,1],[1,2],[2,3],[3,4],[0,5],[5,6],[6,7],[7,8],[5,9],[9,10],[10,11],[11,12],
  [9,13],[13,14],[14,15],[15,16],[13,17],[17,18],[18,19],[19,20],[0,17]];
// For the browser tests: each reply with the mean colour of the frame's top-left 8×8 corner
// (the test clip marks its segments there).
const state = window.sentioGestures = { replies: [], hearts: 0, last: null };

function say(text, tone = "") { $("status").textContent = text; $("status").className = `status ${tone}`; }

async function start() {
  $("start").disabled = true;
  const video = $("video"), grab = document.createElement("canvas");
  try { await openCamera(video); } catch (error) { say(error.message, "bad"); $("start").disabled = false; return; }
  $("placeholder").classList.add("hidden");
  $("start").textContent = "Camera on";
  let inFlight = false, marker = null, sentAt = 0, frames = 0, tick = performance.now();
  const client = new StreamClient("/api/v1/stream/gestures", {
    onMessage: (reply) => {
      inFlight = false;
      if (reply.type === "observation") {
        frames += 1;
        show(reply.observation, marker, reply.serverMs, performance.now() - sentAt);
      } else if (reply.type === "error") say(reply.message, "warn");
      requestAnimationFrame(next);
    },
    onState: (s, detail) => { if (s === "open") { say("Show your hand.", "ok"); next(); } else if (s === "reconnecting") say(`Reconnecting… (${detail})`, "warn"); },
  });
  state.client = client;
  // (`commandAt`: how many replies had come when a command went, for the tests.)
  $("clear").addEventListener("click", () => { state.commandAt = state.replies.length; client.send({ type: "clear" }); });
  $("undo").addEventListener("click", () => { state.commandAt = state.replies.length; client.send({ type: "undo" }); });
  setInterval(() => { const now = performance.now(); $("fps").textContent = ((frames * 1000) / (now - tick)).toFixed(1); frames = 0; tick = now; }, 1000);
  async function next() {
    if (inFlight || !client.isOpen) return;
    inFlight = true;
    const blob = await grabJPEG(video, grab);
    const px = grab.getContext("2d").getImageData(0, 0, 8, 8).data;
    marker = [0, 1, 2].map((c) => { let s = 0; for (let i = c; i < px.length; i += 4) s += px[i]; return Math.round(s / 64); });
    sentAt = performance.now();
    if (!client.send(blob)) inFlight = false;
  }
}

function show(o, marker, serverMs, roundTrip) {
  state.last = o;
  const heart = o.pinch === "start" || o.pinch === "held";
  if (heart) state.hearts += 1;
  state.replies.push({ marker, pinch: o.pinch, heart, pen: o.pen, hand: o.hand.length > 0, strokes: o.strokes.length,
                       points: o.strokes.reduce((n, s) => n + s.length, 0),
                       lastPoint: o.strokes.length ? o.strokes[o.strokes.length - 1].slice(-1)[0] : null,
                       fingers: o.hand.length ? [(o.hand[8][0] + o.hand[12][0]) / 2, (o.hand[8][1] + o.hand[12][1]) / 2] : null,
                       digit: o.digit ? o.digit.digit : null, sure: o.digit ? o.digit.sure : null, event: o.event });
  if (state.replies.length > 5000) state.replies.shift();
  $("pinch").textContent = heart ? "♥ held" : o.hand.length ? "open" : "no hand";
  $("pen").textContent = o.pen ? "writing" : "lifted";
  $("server-ms").textContent = `${Math.round(serverMs)} ms`;
  showDigit(o.digit);
  if (o.event === "cleared") say("Cleared by a double pinch.", "ok");
  draw(o, heart);
}

// A close call (the runner-up nearly as near as the winner: `sure` false) is no answer: the page
// names both digits rather than guess.
function showDigit(d) {
  $("digit").textContent = !d ? "–" : d.sure ? String(d.digit) : `not sure — ${d.digit} or ${d.second}?`;
  $("digit").classList.toggle("unsure", Boolean(d && !d.sure));
  $("digit-score").textContent = !d ? "" : d.sure ? `score ${d.score.toFixed(2)} (next: ${d.second})`
    : `scores ${d.score.toFixed(2)} and ${d.secondScore.toFixed(2)}`;
}

function draw(o, heart) {
  const canvas = $("overlay"), ratio = fit(canvas), ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  // The frame fills the stage (4:3, object-fit: contain on the video).
  const video = $("video"), fw = video.videoWidth || 640, fh = video.videoHeight || 480;
  const s = Math.min(canvas.width / fw, canvas.height / fh), rw = fw * s, rh = fh * s, rx = (canvas.width - rw) / 2, ry = (canvas.height - rh) / 2;
  const at = ([x, y]) => [rx + x * rw, ry + y * rh];
  ctx.lineCap = "round"; ctx.lineJoin = "round";
  ctx.strokeStyle = "rgba(99, 230, 190, 0.95)"; ctx.lineWidth = 6 * ratio;
  for (const stroke of o.strokes) {
    ctx.beginPath();
    stroke.forEach((p, i) => { const [x, y] = at(p); if (i) ctx.lineTo(x, y); else ctx.moveTo(x, y); });
    ctx.stroke();
  }
  if (o.hand.length) {
    ctx.strokeStyle = "rgba(255, 214, 102, 0.9)"; ctx.lineWidth = 2 * ratio;
    for (const [a, b] of BONES) { const [x1, y1] = at(o.hand[a]), [x2, y2] = at(o.hand[b]); ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke(); }
    ctx.fillStyle = "rgba(255, 90, 120, 0.95)";
    for (const p of o.hand) { const [x, y] = at(p); ctx.fillRect(x - 3 * ratio, y - 3 * ratio, 6 * ratio, 6 * ratio); }
  }
  if (heart && o.heart_at) drawHeart(ctx, ...at(o.heart_at), 28 * ratio);
}

function drawHeart(ctx, x, y, size) {
  ctx.save(); ctx.translate(x, y - size * 0.3); ctx.fillStyle = "#e5484d"; ctx.strokeStyle = "#fff"; ctx.lineWidth = size * 0.08;
  ctx.beginPath(); ctx.moveTo(0, size * 0.35);
  ctx.bezierCurveTo(-size * 1.1, -size * 0.35, -size * 0.45, -size * 1.05, 0, -size * 0.45);
  ctx.bezierCurveTo(size * 0.45, -size * 1.05, size * 1.1, -size * 0.35, 0, size * 0.35);
  ctx.closePath(); ctx.fill(); ctx.stroke(); ctx.restore();
}

$("start").addEventListener("click", start);
