// A check-in stream, shared by the kiosk and a student's own phone: the camera's frames go to
// the server as JPEG over a WebSocket (about 9 a second); the server answers each frame it
// processed with a step of the check-in (or "idle" between check-ins) and ends a check-in with
// "checked-in" or "refused". The page only shows what the server decided.
import { openCamera } from "/js/camera.js";

export const ACTION_WORDS = {
  blink: { prompt: "Blink", icon: "◡", label: "Blink", hint: "Close your eyes for a moment, then open them." },
  "open-mouth": { prompt: "Open your mouth", icon: "○", label: "Open mouth", hint: "Open it wide for a moment, then close it." },
  "turn-left": { prompt: "Turn your head to your left", icon: "↶", label: "Turn left", hint: "Turn slowly, then look back at the camera." },
  "turn-right": { prompt: "Turn your head to your right", icon: "↷", label: "Turn right", hint: "Turn slowly, then look back at the camera." },
};

/** The smaller line under the prompt: how to do the action, or the server's words. */
export function hintFor(step) {
  if (step.problem) return "";
  if (step.phase === "challenge" && step.action) {
    return `Step ${Math.min(step.done + 1, step.actions.length)} of ${step.actions.length}: ${ACTION_WORDS[step.action]?.hint ?? step.message}`;
  }
  if (step.phase === "challenge") return "Look straight at the camera, face still.";
  return step.message;
}

export class CheckInStream {
  /**
   * url: the WebSocket path; video: the preview; overlay: a canvas over it for the face boxes;
   * on: {open, step, idle, checkedIn, refused, error, closed} callbacks.
   */
  constructor({ url, video, overlay, on = {}, fps = 9 }) {
    Object.assign(this, { url, video, overlay, on, interval: 1000 / fps });
    this.canvas = document.createElement("canvas");
    this.busy = false;
    this.active = false;
    this.sent = 0;
    this.replies = 0;
  }

  async start() {
    this.stream = await openCamera(this.video);
    await this.connect();
    this.timer = setInterval(() => this.send(), this.interval);
  }

  connect() {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${this.url}`);
      socket.binaryType = "arraybuffer";
      let opened = false;
      socket.onopen = () => { opened = true; this.socket = socket; this.on.open?.(); resolve(); };
      socket.onerror = () => { if (!opened) reject(new Error("The check-in service could not be reached (is the lecture still open?).")); };
      socket.onclose = (event) => {
        this.socket = null;
        if (opened) this.on.closed?.(event);
        else reject(new Error("The check-in service refused the connection (is the lecture still open, and are you signed in?)."));
      };
      socket.onmessage = (event) => this.receive(JSON.parse(event.data));
    });
  }

  receive(message) {
    this.replies += 1;
    if (message.faces) this.drawFaces(message.faces);
    switch (message.type) {
      case "step": this.on.step?.(message.step, message); break;
      case "idle": this.on.idle?.(message); break;
      case "checked-in": this.active = false; this.on.checkedIn?.(message.checkIn); break;
      case "proof": this.active = false; this.on.proof?.(message); break;
      case "refused": this.active = false; this.on.refused?.(message.message, message); break;
      case "error": if (message.code === "refused") this.active = false; this.on.error?.(message); break;
      default: break;
    }
  }

  /**
   * Starts a check-in: `student` picked (1:1), or none to be recognised (1:N); with
   * `purpose: "proof"` at a kiosk, its operator's face proof (to leave it).
   */
  begin(student, purpose) {
    if (!this.socket) return false;
    this.active = true;
    this.socket.send(JSON.stringify({ type: "start", ...(student ? { student } : {}), ...(purpose ? { purpose } : {}) }));
    return true;
  }

  cancel() {
    this.active = false;
    this.socket?.send(JSON.stringify({ type: "cancel" }));
  }

  async send() {
    const video = this.video;
    if (!this.socket || this.busy || !video.videoWidth || this.socket.bufferedAmount > 0) return;
    this.busy = true;
    try {
      const scale = Math.min(1, 640 / video.videoWidth, 480 / video.videoHeight);
      this.canvas.width = Math.round(video.videoWidth * scale);
      this.canvas.height = Math.round(video.videoHeight * scale);
      this.canvas.getContext("2d").drawImage(video, 0, 0, this.canvas.width, this.canvas.height);
      const blob = await new Promise((resolve) => this.canvas.toBlob(resolve, "image/jpeg", 0.85));
      if (blob && this.socket) { this.socket.send(await blob.arrayBuffer()); this.sent += 1; }
    } finally {
      this.busy = false;
    }
  }

  drawFaces(faces) {
    const overlay = this.overlay;
    if (!overlay || !this.video.videoWidth) return;
    overlay.width = this.video.videoWidth;
    overlay.height = this.video.videoHeight;
    const g = overlay.getContext("2d");
    g.clearRect(0, 0, overlay.width, overlay.height);
    g.lineWidth = Math.max(3, overlay.width / 160);
    g.strokeStyle = faces.length === 1 ? "#34d399" : "#fbbf24";
    for (const box of faces) {
      const x = box.x * overlay.width, y = box.y * overlay.height, w = box.width * overlay.width, hgt = box.height * overlay.height;
      const r = Math.min(w, hgt) * 0.12;
      g.beginPath();
      g.roundRect(x, y, w, hgt, r);
      g.stroke();
    }
  }

  stop() {
    clearInterval(this.timer);
    this.socket?.close();
    this.stream?.getTracks().forEach((track) => track.stop());
  }
}

/** The challenge's progress as chips: done, current, to do. */
export function progressChips(h, step) {
  return (step.actions ?? []).map((action, i) => {
    const words = ACTION_WORDS[action] ?? { label: action, icon: "•" };
    const state = i < step.done ? "done" : i === step.done && step.phase === "challenge" ? "now" : "todo";
    return h("li", { class: `chip ${state}`, "aria-current": state === "now" ? "step" : null },
      h("span", { class: "chip-icon", "aria-hidden": "true" }, state === "done" ? "✓" : words.icon), words.label);
  });
}

/** The big line for a frame the server cannot use (its full reason goes on the camera). */
const PROBLEM_PROMPTS = {
  "no-face": "Look at the camera", "several-faces": "One person at a time", "too-small": "Come closer",
  "turned-away": "Look straight ahead", "eyes-closed": "Open your eyes", "one-eye-closed": "Open both eyes",
  "eyes-hidden": "Take off your sunglasses",
};

/** The big line for a step: the action asked for, or the server's message. */
export function promptFor(step) {
  if (step.phase === "challenge" && step.action) return (ACTION_WORDS[step.action]?.prompt ?? step.message.replace(/\.$/, ""));
  if (step.problem) return PROBLEM_PROMPTS[step.problem] ?? "Adjust your position";
  if (step.phase === "framing") return "Hold still: checking your face";
  if (step.phase === "recheck") return "Look at the camera once more";
  if (step.phase === "passed") return "Checked";
  return step.message;
}

const ACTION_VERBS = { blink: "blink", "open-mouth": "open your mouth", "turn-left": "turn your head to your left", "turn-right": "turn your head to your right" };

/**
 * A refusal in plain words for the person in front of the camera ("We could not see you blink
 * in time."), never the audit's wording ("liveness: blink not done within 6 s").
 */
export function plainWords(reason = "") {
  let m;
  if ((m = /^liveness: (\S+) not done within/.exec(reason))) return `We could not see you ${ACTION_VERBS[m[1]] ?? m[1]} in time.`;
  if ((m = /^liveness: (\S+) when asked to (\S+)/.exec(reason))) return `We asked you to ${ACTION_VERBS[m[2]] ?? m[2]}, and saw something else.`;
  if (/^liveness: no steady face/.test(reason)) return "We could not see your face steady and looking straight at the camera.";
  if (/^liveness: the face left/.test(reason)) return "Your face left the camera.";
  if (/^liveness: another face/.test(reason)) return "Another face came into view: one person at a time.";
  if (/face after the challenge/.test(reason)) return "The face at the end was not the face at the start.";
  if (/does not match/.test(reason)) return "The face does not match the one enrolled.";
  if (/took longer than/.test(reason)) return "That took too long.";
  const text = reason.replace(/^liveness: /, "");
  return text ? text[0].toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? "" : ".") : "Not confirmed.";
}
