// The phone's side: motion permission from a tap, and every devicemotion event sent to the
// server's motion stream as it comes (no batching: each sample is a message, for latency). The
// page sends what the browser gives, nulls included: the server normalises browsers in one place.
import { StreamClient } from "/js/stream.js";

/** "granted", or a sentence saying why not and what to do. */
export async function askMotionPermission() {
  if (typeof DeviceMotionEvent === "undefined") return "This browser has no motion sensors (DeviceMotionEvent is missing). Try a phone's browser.";
  if (!window.isSecureContext) return "Motion sensors need a secure page: open the https:// address (the QR code gives it).";
  if (typeof DeviceMotionEvent.requestPermission === "function") {
    let answer;
    try { answer = await DeviceMotionEvent.requestPermission(); } catch (error) { answer = error.message; }
    if (answer !== "granted") {
      return "Motion access was refused. To allow it, reload this page and tap Allow when asked (iPhone: Settings → Safari → Motion & Orientation Access).";
    }
  }
  return "granted";
}

/** One devicemotion event as the motion stream's sample (docs/play.md); also the Puzzler's. */
export function motionSample(event) {
  const a = event.accelerationIncludingGravity, r = event.rotationRate;
  return {
    t: event.timeStamp,
    accelerationIncludingGravity: a ? { x: a.x, y: a.y, z: a.z } : null,
    rotationRate: r ? { alpha: r.alpha, beta: r.beta, gamma: r.gamma } : null,
    screen: screen.orientation ? screen.orientation.angle : 0,
  };
}

export class MotionSender {
  /** `path`: the motion stream's address (with ?room=CODE when paired). */
  constructor(path, { onReply, onState = () => {} }) {
    this.sent = 0;
    this.events = 0;
    this.log = []; // the samples as sent (for the browser tests: fused again by `sentio motion fuse`)
    this.client = new StreamClient(path, { onMessage: onReply, onState });
    this.listener = (event) => this.send(event);
    window.addEventListener("devicemotion", this.listener);
  }

  send(event) {
    this.events += 1;
    const sample = motionSample(event);
    const sentAt = performance.timeOrigin + event.timeStamp;
    const message = { samples: [sample], sentAt };
    if (this.mark) { message.mark = this.mark; this.mark = null; }
    if (this.client.send(message)) {
      this.sent += 1;
      if (this.log.length < 50000) this.log.push(sample);
    }
  }

  /** Sends `word` with the next sample (the big screen acts on it: `recentre`). */
  markNext(word) { this.mark = word; }

  stop() {
    window.removeEventListener("devicemotion", this.listener);
    this.client.close();
  }
}
