// Motion levels: DeviceMotion after the permission tap (the arcade's helper), the samples in the
// arcade's shape batched every ~50 ms as {"type": "motion", "samples": [...]}; the server turns
// them into the turns about each axis, drawn here as three dials.
import { askMotionPermission, motionSample } from "/arcade/motion.js";
import { actionButton } from "/puzzler/play.js";

const BATCH_MS = 50;
const AXES = [
  ["roll", "Roll", "tip it left or right, all the way round"],
  ["pitch", "Pitch", "tip it towards you, all the way round"],
  ["yaw", "Yaw", "spin it flat, like a compass"],
];

export function motionSense(level, view, el, { onNoSensors } = {}) {
  let batch = [], timer = 0, events = 0, lastDetail = null, listening = false;
  el.scene.innerHTML = `<div class="pz-axes">${AXES.map(([id, name, how]) => `
    <div class="pz-axis" data-axis="${id}">
      <svg viewBox="0 0 100 100" aria-hidden="true"><circle cx="50" cy="50" r="40" fill="none" stroke="rgb(255 255 255 / 12%)" stroke-width="9"/>
        <circle class="arc" cx="50" cy="50" r="40" fill="none" stroke="#5fa8ff" stroke-width="9" stroke-linecap="round"
          stroke-dasharray="251.3" stroke-dashoffset="251.3" transform="rotate(-90 50 50)"/>
        <text x="50" y="50" text-anchor="middle" dominant-baseline="central" fill="#fff" font-size="18" font-weight="700">0°</text></svg>
      <span class="name">${name}</span><span class="small muted">${how}</span></div>`).join("")}</div>`;

  async function start() {
    const answer = await askMotionPermission();
    if (answer !== "granted") {
      view.wait("motion", { icon: "⟲", text: answer, actions: [actionButton("Try again", start, true)] });
      onNoSensors?.();
      return;
    }
    view.wait("motion", null);
    view.connect();
    if (!listening) {
      listening = true;
      window.addEventListener("devicemotion", (event) => {
        events += 1;
        batch.push(motionSample(event));
        if (!timer) timer = setTimeout(flush, BATCH_MS);
      });
    }
    setTimeout(() => {
      if (events === 0) {
        view.wait("motion", { icon: "⟲", text: "No motion events came: this device has no motion sensors, or the browser blocks them. Play this level on a phone." });
        onNoSensors?.();
      }
    }, 2000);
  }

  function flush() {
    timer = 0;
    if (!batch.length) return;
    const samples = batch;
    batch = [];
    if (!view.send({ type: "motion", samples, sentAt: performance.timeOrigin + performance.now() })) {
      // Not connected: keep the newest second, so a reconnect does not lose a turn in progress.
      batch = samples.slice(-60).concat(batch);
    }
  }

  function reply(r) {
    if (r.type !== "level") return;
    const d = lastDetail = r.detail || {};
    for (const [id] of AXES) {
      const axis = d.axes?.[id];
      if (!axis) continue;
      const box = el.scene.querySelector(`[data-axis="${id}"]`);
      const fraction = typeof axis.progress === "number" ? axis.progress
        : id === "pitch" ? (Number(axis.quarters) || 0) / 4 : Math.abs(Number(axis.degrees) || 0) / 360;
      const f = axis.done ? 1 : Math.max(0, Math.min(1, fraction));
      const arc = box.querySelector(".arc");
      arc.setAttribute("stroke-dashoffset", String(251.3 * (1 - f)));
      arc.setAttribute("stroke", axis.done ? "#ffd34d" : "#5fa8ff");
      box.querySelector("text").textContent = axis.done ? "★" : `${Math.round(f * 360)}°`;
      box.classList.toggle("done", !!axis.done);
    }
  }

  return { start, reply, stop() {}, get detail() { return lastDetail; }, get events() { return events; } };
}
