// Playing one level, shared by the level page and the paired phone's page: the level socket
// (the shared StreamClient, reconnecting), the server's replies shown (message, progress ring,
// calibration, the solve), and the waiting messages — a stalled stream (no reply for 2 s to
// something sent), offline, and the sense's own (permissions, two faces, too dark).
import { StreamClient } from "/js/stream.js";
import { playPath, starSVG } from "/puzzler/api.js";

/** No reply for this long to something sent: the stream is stalled (ms). */
export const STALL_MS = 2000;
/** Error codes after which the server closes the socket for good. */
const FINAL_ERRORS = ["locked", "unavailable"];

export class LevelView {
  /**
   * @param level the catalogue entry
   * @param elements {stage, video, overlay, scene, wait, chip, message, ring, ringText}
   * @param options {room, onReply(reply), onSolved(reply), offlineOK}
   */
  constructor(level, elements, { room = null, onReply = () => {}, onSolved = () => {}, offlineOK = false } = {}) {
    this.level = level;
    this.el = elements;
    this.room = room;
    this.onReply = onReply;
    this.onSolved = onSolved;
    this.offlineOK = offlineOK;
    this.client = null;
    this.pendingSince = 0;
    this.phase = null;
    this.solved = false;
    /** After a solve the capture rests until the player chooses to play again (resume()). */
    this.paused = false;
    this.waits = new Map(); // reason → {text, icon, actions}; the first shown
    // For the browser tests: every reply and what was sent.
    this.log = { replies: [], sent: { binary: 0, text: [] }, stalls: 0 };
    this.watchdog = setInterval(() => this.checkStall(), 250);
    window.addEventListener("offline", () => this.showOffline());
    window.addEventListener("online", () => this.showOffline());
    this.showOffline();
  }

  /** Opens the level socket (`rate` for sound levels). */
  connect({ rate } = {}) {
    this.client?.close();
    this.pendingSince = 0;
    this.client = new StreamClient(playPath(this.level.id, { room: this.room, rate }), {
      onMessage: (reply) => this.receive(reply),
      onState: (s, detail) => {
        if (s === "open") {
          this.wait("socket", null);
          if (!this.log.replies.length && this.el.message.textContent.startsWith("Connecting")) this.say("");
          this.opened?.();
        }
        else if (s === "reconnecting") this.wait("socket", navigator.onLine === false && this.offlineOK ? null : { icon: "⟳", text: `Reconnecting to the level… (${detail})` });
        else if (s === "connecting" && !this.log.replies.length) this.say("Connecting to the level…");
      },
    });
    return this.client;
  }

  get isOpen() { return !!this.client?.isOpen; }

  /** Sends a frame, audio chunk (binary) or message; false when not connected. */
  send(data, { expectReply = true } = {}) {
    if (!this.client || this.paused) return false;
    const binary = data instanceof Blob || data instanceof ArrayBuffer;
    const ok = this.client.send(data);
    if (!ok) return false;
    if (binary) this.log.sent.binary += 1;
    else { this.log.sent.text.push(data.type); if (this.log.sent.text.length > 500) this.log.sent.text.shift(); }
    if (expectReply && !this.pendingSince) this.pendingSince = performance.now();
    return true;
  }

  checkStall() {
    const stalled = this.pendingSince && performance.now() - this.pendingSince > STALL_MS && this.client?.isOpen;
    if (stalled && !this.waits.has("stall")) {
      this.log.stalls += 1;
      this.wait("stall", { icon: "◷", text: "The server has not answered for 2 seconds. Waiting for it…" });
    } else if (!stalled && this.waits.has("stall")) this.wait("stall", null);
  }

  showOffline() {
    if (navigator.onLine === false && !this.offlineOK) {
      this.wait("offline", { icon: "☁", text: "You are offline. The level carries on when the connection is back." });
    } else this.wait("offline", null);
  }

  /** Shows (or with null clears) a waiting message over the stage; several wait in order. */
  wait(reason, what) {
    if (what) this.waits.set(reason, what); else this.waits.delete(reason);
    const box = this.el.wait;
    if (!box) return;
    const first = this.waits.values().next().value;
    box.innerHTML = "";
    box.classList.toggle("hidden", !first);
    // The chip would show through the waiting message: one thing at a time.
    this.el.chip?.classList.toggle("hidden", !!first);
    if (!first) return;
    box.dataset.reason = this.waits.keys().next().value;
    if (first.icon) { const icon = document.createElement("div"); icon.className = "pz-wait-icon"; icon.setAttribute("aria-hidden", "true"); icon.textContent = first.icon; box.append(icon); }
    const p = document.createElement("p");
    p.textContent = first.text;
    box.append(p);
    for (const action of first.actions || []) box.append(action);
  }

  /** The message line under the clue. */
  say(text, tone = "") {
    this.el.message.textContent = text || "";
    this.el.message.className = `pz-message ${tone}`.trim();
  }

  /** The chip over the stage (short, what matters now). */
  chip(text, tone = "") {
    if (!this.el.chip) return;
    this.el.chip.textContent = text || "";
    this.el.chip.className = `pz-chip ${tone}`.trim();
    if (this.waits.size) this.el.chip.classList.add("hidden");
  }

  progress(value) {
    const v = Math.max(0, Math.min(1, Number(value) || 0));
    const ring = this.el.ring;
    if (ring) {
      const length = 2 * Math.PI * 32;
      ring.style.strokeDasharray = String(length);
      ring.style.strokeDashoffset = String(length * (1 - v));
    }
    if (this.el.ringText) this.el.ringText.textContent = `${Math.round(v * 100)}%`;
  }

  receive(reply) {
    this.pendingSince = 0;
    this.log.replies.push(reply);
    if (this.log.replies.length > 300) this.log.replies.shift();
    if (reply.type === "error") {
      if (FINAL_ERRORS.includes(reply.code)) {
        // The server will not play this level here (locked, or its models are missing): stop retrying.
        this.client?.close();
        this.wait("final", { icon: "✕", text: reply.message || "The server cannot play this level now." });
      }
      this.say(reply.message || "The server could not use that.", "warn");
      this.onReply(reply);
      return;
    }
    if (reply.type !== "level") return;
    // Replies to what was in flight when the level was solved change nothing.
    if (this.paused) return;
    this.phase = reply.phase;
    this.progress(reply.progress);
    const tone = reply.phase === "solved" ? "ok" : "";
    this.say(reply.message, tone);
    if (reply.phase === "calibrating") {
      this.wait("calibrating", { icon: "☺", text: reply.message || "Look at the camera with a neutral face while it measures you." });
    } else this.wait("calibrating", null);
    this.onReply(reply);
    if (reply.phase === "solved" && !this.solved) {
      this.solved = true;
      this.paused = true;
      this.onSolved(reply);
    }
  }

  /** Plays the level again after a solve: the server starts it over. */
  resume() {
    this.paused = false;
    this.solved = false;
    this.progress(0);
    this.say("Once more, from the start.");
    this.chip("");
    this.send({ type: "reset" }, { expectReply: false });
  }

  /** Stops this page's own socket (a paired phone plays instead; its replies come through `receive`). */
  detach() {
    this.client?.close();
    this.client = null;
    this.pendingSince = 0;
    for (const reason of ["socket", "stall", "final"]) this.waits.delete(reason);
    this.wait("socket", null);
  }

  close() {
    clearInterval(this.watchdog);
    this.client?.close();
  }
}

/**
 * The success moment: a big star, the time, the levels it opened (links), and the way back.
 * `names`: id → "number · title".
 */
export function showSolved(reply, names, { back = "/puzzler/", backLabel = "Back to the star map", note = "", onClose } = {}) {
  document.querySelector(".pz-solved")?.remove();
  const layer = document.createElement("div");
  layer.className = "pz-solved";
  layer.setAttribute("role", "dialog");
  layer.setAttribute("aria-labelledby", "solved-title");
  const opened = (reply.opened || []).filter((id) => names.has(id));
  const seconds = Number(reply.seconds);
  layer.innerHTML = `<div class="pz-solved-card">${starSVG("pz-big-star")}
    <h2 id="solved-title">Solved!</h2><p class="pz-time"></p><p class="pz-opened-title"></p><ul class="pz-opened"></ul>
    <p class="pz-note"></p><div class="actions"><a class="button primary" href="#">Back</a><button type="button" class="pz-again">Play it again</button></div></div>`;
  const link = layer.querySelector("a.button.primary");
  if (back) { link.href = back; link.textContent = backLabel; } else link.remove();
  layer.querySelector(".pz-note").textContent = note;
  layer.querySelector(".pz-time").textContent = Number.isFinite(seconds)
    ? `The star lights up after ${seconds < 60 ? `${Math.round(seconds)} s` : `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`}.`
    : "The star lights up.";
  layer.querySelector(".pz-opened-title").textContent = opened.length ? `New stars opened: ${opened.length}` : "";
  for (const id of opened) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = `/puzzler/level.html?level=${encodeURIComponent(id)}`;
    a.textContent = names.get(id);
    li.append(a);
    layer.querySelector(".pz-opened").append(li);
  }
  layer.querySelector(".pz-again").addEventListener("click", () => { layer.remove(); onClose?.(); });
  layer.addEventListener("keydown", (event) => { if (event.key === "Escape") { layer.remove(); onClose?.(); } });
  document.body.append(layer);
  (layer.querySelector("a.button.primary") || layer.querySelector(".pz-again")).focus();
  return layer;
}

/** A button element for a waiting message. */
export function actionButton(text, onClick, primary = false) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = text;
  if (primary) button.className = "primary";
  button.addEventListener("click", onClick);
  return button;
}

/** Shows `text` alone in a waiting box (the level or the phone page could not go on). */
export function showWaiting(box, text) {
  box.innerHTML = "";
  box.classList.remove("hidden");
  const p = document.createElement("p");
  p.textContent = text;
  box.append(p);
}
