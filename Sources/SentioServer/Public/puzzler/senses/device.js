// Device levels: the browser's signals in place of the original's hardware, each sent as
// {"type": "event", "name", "value", "t"} (t: this page's clock, ms). Each signal's state is
// also sent once when the socket opens, marked "initial": true (the server's baseline).
//   theme   → prefers-color-scheme changes ("color-scheme": "dark" | "light")
//   plugs   → audio outputs listed by enumerateDevices ("audio-outputs": count), then the
//             battery ("battery": {charging, level}) where navigator.getBattery exists
//   offline → "offline" / "online"; kept while offline and reported with POST …/offline/events
//   volume  → screen.orientation changes ("orientation": its type)
import { offlineEvents } from "/puzzler/api.js";
import { actionButton } from "/puzzler/play.js";

const SIGNALS = { theme: ["color-scheme"], plugs: ["audio-outputs", "battery"], offline: ["online"], volume: ["orientation"] };
const ALL = ["color-scheme", "online", "orientation", "audio-outputs", "battery"];
const NAMES = { "color-scheme": "the colour scheme", online: "the connection", orientation: "the screen's orientation",
                "audio-outputs": "the audio outputs", battery: "the battery" };
const STORE = "sentio.puzzler.offline-events";

export function deviceSense(level, view, el, { onLacking } = {}) {
  const wanted = SIGNALS[level.id] || ALL;
  const queue = [];
  let lastDetail = null, battery = null, outputs = null, replied = false;
  const dark = window.matchMedia?.("(prefers-color-scheme: dark)");
  const offlineLevel = level.id === "offline";
  // The offline level's events, kept across a reload while offline.
  let recorded = [];
  try { recorded = JSON.parse(localStorage.getItem(STORE) || "[]"); } catch { recorded = []; }

  el.stage.classList.add("pz-auto");
  el.scene.innerHTML = `<ul class="pz-steps" aria-label="Steps"></ul><p class="small muted pz-now" aria-live="polite"></p>`;
  const stepsList = el.scene.querySelector(".pz-steps"), now = el.scene.querySelector(".pz-now");

  /** Which wanted signals this browser has: {name: true|false|"permission"}. */
  function support() {
    return {
      "color-scheme": !!dark,
      online: "onLine" in navigator,
      orientation: !!(screen.orientation && "type" in screen.orientation),
      "audio-outputs": !!(navigator.mediaDevices?.enumerateDevices && "ondevicechange" in navigator.mediaDevices),
      battery: typeof navigator.getBattery === "function",
    };
  }

  function send(name, value, extra = {}) {
    const message = { type: "event", name, value, t: Math.round(performance.now()), ...extra };
    if (!view.send(message)) { queue.push(message); if (queue.length > 50) queue.shift(); }
    showNow();
  }

  function flushQueue() { while (queue.length && view.isOpen) view.send(queue.shift()); }

  let labelled = false;
  async function countOutputs() {
    try {
      const devices = await navigator.mediaDevices.enumerateDevices();
      // Labels show that the browser lists every device (a media permission was given).
      labelled = devices.some((d) => d.label);
      return devices.filter((d) => d.kind === "audiooutput").length;
    } catch { return null; }
  }

  function showNow() {
    const parts = [];
    if (wanted.includes("color-scheme") && dark) parts.push(`colour scheme: ${dark.matches ? "dark" : "light"}`);
    if (wanted.includes("online")) parts.push(navigator.onLine ? "online" : "offline");
    if (wanted.includes("orientation") && screen.orientation) parts.push(`screen: ${screen.orientation.type}`);
    if (wanted.includes("audio-outputs") && outputs != null) parts.push(`audio outputs: ${outputs}`);
    if (wanted.includes("battery") && battery) parts.push(`battery: ${battery.charging ? "charging" : "not charging"}, ${Math.round(battery.level * 100)}%`);
    now.textContent = parts.length ? `Now — ${parts.join(" · ")}` : "";
  }

  function initial() {
    flushQueue();
    if (wanted.includes("color-scheme") && dark) send("color-scheme", dark.matches ? "dark" : "light", { initial: true });
    if (wanted.includes("orientation") && screen.orientation) send("orientation", screen.orientation.type, { initial: true });
    if (wanted.includes("audio-outputs") && outputs != null) send("audio-outputs", outputs, { initial: true });
    // A computer without a battery reports one that is full and charging forever (the Battery
    // Status spec's default: charging, level 1, chargingTime 0, dischargingTime Infinity): the
    // charger cannot be seen there, so it counts as hidden too.
    const noBattery = battery && battery.charging && battery.level === 1 && battery.chargingTime === 0 && battery.dischargingTime === Infinity;
    if (wanted.includes("battery") && battery && !noBattery) send("battery", { charging: battery.charging, level: battery.level }, { initial: true });
    // Where the browser hides the battery (or there is none) the server takes the headphones twice instead.
    if (wanted.includes("battery") && (!battery || noBattery)) send("battery", "unsupported", { initial: true });
    if (wanted.includes("online") && !offlineLevel) send(navigator.onLine ? "online" : "offline", null, { initial: true });
    if (offlineLevel && recorded.length && navigator.onLine) report();
    else if (offlineLevel && !replied) view.say("Ready. Go offline when you like: this page keeps listening.");
  }

  async function start() {
    const has = support();
    const lacking = wanted.filter((s) => !has[s]);
    if (lacking.length) onLacking?.(lacking.map((s) => NAMES[s]));
    if (wanted.includes("color-scheme") && dark) dark.addEventListener("change", (e) => send("color-scheme", e.matches ? "dark" : "light"));
    if (wanted.includes("orientation") && screen.orientation) screen.orientation.addEventListener("change", () => send("orientation", screen.orientation.type));
    if (wanted.includes("audio-outputs") && has["audio-outputs"]) {
      outputs = await countOutputs();
      navigator.mediaDevices.addEventListener("devicechange", async () => { outputs = await countOutputs(); send("audio-outputs", outputs); });
      // Without a media permission some browsers list one output at most: offer to ask.
      const ask = actionButton("Let the page see your audio devices", async () => {
        try {
          const s = await navigator.mediaDevices.getUserMedia({ audio: true });
          s.getTracks().forEach((t) => t.stop());
          outputs = await countOutputs();
          send("audio-outputs", outputs, { initial: true });
          ask.remove();
        } catch { ask.textContent = "Not allowed: the count may stay at one"; ask.disabled = true; }
      });
      ask.classList.add("pz-ask");
      if (!labelled) el.scene.append(ask);
    }
    if (wanted.includes("battery") && has.battery) {
      try {
        battery = await navigator.getBattery();
        const changed = () => send("battery", { charging: battery.charging, level: battery.level });
        battery.addEventListener("chargingchange", changed);
        battery.addEventListener("levelchange", changed);
      } catch { battery = null; }
    }
    if (wanted.includes("online")) {
      window.addEventListener("offline", () => connection("offline"));
      window.addEventListener("online", () => connection("online"));
    }
    view.opened = initial;
    view.connect();
    showNow();
    showSteps(null);
  }

  /** online/offline: the offline level keeps them and reports them on return; the others send them. */
  function connection(name) {
    if (!offlineLevel) { send(name, null); return; }
    recorded.push({ name, t: Math.round(performance.now()) });
    try { localStorage.setItem(STORE, JSON.stringify(recorded.slice(-50))); } catch { /* private mode */ }
    showNow();
    if (name === "offline") {
      view.say("You are offline — the level is still listening. Come back online when you are ready.", "ok");
      showSteps(null);
    } else report();
  }

  async function report(retry = 0) {
    if (!recorded.length) return;
    const events = recorded.slice();
    view.say("Back online: telling the server what happened…");
    try {
      const reply = await offlineEvents(events);
      recorded = recorded.slice(events.length);
      try { localStorage.setItem(STORE, JSON.stringify(recorded)); } catch { /* private mode */ }
      if (reply && typeof reply === "object") view.receive({ type: "level", level: level.id, ...reply });
    } catch (error) {
      if (error.status === 0 && retry < 5) setTimeout(() => report(retry + 1), 1500);
      else view.say(`The server did not take the offline report: ${error.message}`, "warn");
    }
  }

  function showSteps(steps) {
    const list = steps || (replied ? null : defaultSteps());
    if (!list) return;
    stepsList.innerHTML = "";
    for (const step of list) {
      const li = document.createElement("li");
      li.textContent = step.label;
      if (step.done) li.className = "done";
      stepsList.append(li);
    }
  }

  function defaultSteps() {
    if (offlineLevel) {
      const wentOff = recorded.some((e) => e.name === "offline");
      return [{ label: "Go offline (airplane mode, or unplug the network)", done: wentOff || !navigator.onLine },
              { label: "Come back online", done: wentOff && navigator.onLine && recorded.at(-1)?.name === "online" }];
    }
    return [];
  }

  function reply(r) {
    if (r.type !== "level") return;
    replied = true;
    const d = lastDetail = r.detail || {};
    if (Array.isArray(d.steps)) showSteps(d.steps);
  }

  function clear() {
    recorded = [];
    replied = false;
    try { localStorage.removeItem(STORE); } catch { /* private mode */ }
    showSteps(null);
  }

  return { start, reply, clear, stop() {}, get detail() { return lastDetail; }, get recorded() { return recorded; } };
}
