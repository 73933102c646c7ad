// The lecture's kiosk: a tablet (or phone) run by the professor's session. Students tap their
// name (1:1) or just look at the camera (1:N); the server checks the face, the liveness
// challenge and the face again, and records a pending check-in.
import { $, ATT, api, h, requireRole, clock } from "/attendance/common.js";
import { CheckInStream, progressChips, promptFor, hintFor } from "/attendance/checkin.js";

const lectureID = new URLSearchParams(location.search).get("lecture") ?? "";
const RESULT_SECONDS = { ok: 4, bad: 5 };
let roll = null, stream = null, chosen = null, resultTimer = null;

function screen(name) {
  document.querySelector("main").dataset.screen = name;
  for (const id of ["pick", "checking", "result"]) $(id).classList.toggle("hidden", id !== name);
  $("problem").classList.add("hidden");
}

async function loadRoll() {
  roll = await api(`${ATT}/lectures/${encodeURIComponent(lectureID)}`);
  $("course").textContent = `${roll.course.code} · ${roll.course.title}`;
  $("title").textContent = roll.lecture.title;
  $("count").textContent = `${roll.checkedIn.length} of ${roll.checkedIn.length + roll.missing.length} checked in`;
  $("back").href = `/attendance/lecture.html?lecture=${encodeURIComponent(lectureID)}`;
  renderNames();
  if (roll.lecture.state !== "open") {
    $("foot").textContent = roll.lecture.state === "confirmed" ? "This lecture is confirmed: check-in is closed." : "This lecture is not open yet.";
    $("just-look").disabled = true;
  }
}

function renderNames() {
  const filter = $("filter").value.trim().toLowerCase();
  const open = roll?.lecture.state === "open";
  const names = (roll?.missing ?? []).filter((p) => !filter || p.displayName.toLowerCase().includes(filter) || p.username.toLowerCase().includes(filter));
  $("names").replaceChildren(...names.map((person) => h("li", {},
    h("button", { type: "button", class: "kiosk-name", disabled: !open || person.faces === 0, dataset: { student: person.id },
                  onclick: () => begin(person) },
      h("span", { class: "avatar", "aria-hidden": "true" }, initials(person.displayName)),
      h("span", { class: "kiosk-name-text" }, person.displayName,
        person.faces === 0 ? h("small", {}, "no face enrolled: see the professor") : null)))));
  $("names-empty").hidden = (roll?.missing ?? []).length > 0;
}

const initials = (name) => name.split(/\s+/).filter(Boolean).slice(0, 2).map((w) => w[0].toUpperCase()).join("");

function begin(person) {
  clearTimeout(resultTimer);
  chosen = person;
  if (!stream?.begin(person?.id)) { $("foot").textContent = "Not connected: wait a moment."; return; }
  screen("checking");
  $("who").textContent = person ? person.displayName : "Recognising you among the course's students";
  $("prompt").textContent = "Look at the camera";
  $("message").textContent = "Face the camera, alone, at arm's length.";
  $("chips").replaceChildren();
}

function onStep(step) {
  if (document.querySelector("main").dataset.screen !== "checking") return;
  $("prompt").textContent = promptFor(step);
  $("prompt").dataset.phase = step.phase;
  $("prompt").dataset.action = step.action ?? "";
  $("message").textContent = hintFor(step);
  $("problem").textContent = step.problem ? step.message : "";
  $("problem").classList.toggle("hidden", !step.problem);
  $("chips").replaceChildren(...progressChips(h, step));
}

function result(ok, title, text) {
  screen("result");
  $("result").dataset.tone = ok ? "ok" : "bad";
  $("mark").textContent = ok ? "✓" : "✕";
  $("result-title").textContent = title;
  $("result-who").textContent = ok || !chosen ? "" : chosen.displayName;
  $("result-text").textContent = text;
  $("result-hint").textContent = ok ? "" : "Try again, or ask the professor if it keeps failing.";
  clearTimeout(resultTimer);
  let left = RESULT_SECONDS[ok ? "ok" : "bad"];
  const tick = () => {
    $("result-back").textContent = `Back to the list (${Math.ceil(left)})`;
    if (left <= 0) { backToList(); return; }
    left -= 1;
    resultTimer = setTimeout(tick, 1000);
  };
  tick();
}

function backToList() {
  clearTimeout(resultTimer);
  chosen = null;
  screen("pick");
  loadRoll().catch((error) => { $("foot").textContent = error.message; });
}

async function main() {
  if (!(await requireRole(["professor", "admin"], location.pathname + location.search))) { screen("none"); return; }
  try {
    await loadRoll();
  } catch (error) {
    $("gate").classList.remove("hidden");
    $("gate").replaceChildren(h("h2", {}, "The kiosk cannot start"), h("p", {}, error.message),
      h("a", { class: "button primary", href: "/attendance/professor.html" }, "Back to my courses"));
    screen("none");
    return;
  }
  screen("pick");
  stream = new CheckInStream({
    url: `${ATT}/lectures/${encodeURIComponent(lectureID)}/kiosk`, video: $("video"), overlay: $("overlay"),
    on: {
      step: onStep,
      checkedIn: (checkIn) => {
        result(true, `Welcome, ${checkIn.displayName}`, `Checked in at ${clock(checkIn.at)}. Your professor confirms the lecture at its end.`);
        loadRoll().catch(() => {});
      },
      refused: (message) => result(false, "Not checked in", sentence(message)),
      error: (message) => { if (message.code === "refused") result(false, "Not checked in", sentence(message.message)); },
      closed: () => { $("foot").textContent = "The connection closed: reload the page to go on."; },
    },
  });
  try {
    await stream.start();
    $("placeholder").classList.add("hidden");
    $("foot").textContent = "Camera on. Nothing is recorded until a check-in passes.";
  } catch (error) {
    $("placeholder").textContent = error.message;
  }
  setInterval(() => { if (document.querySelector("main").dataset.screen === "pick") loadRoll().catch(() => {}); }, 5000);
}

const sentence = (text) => (text ? text[0].toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? "" : ".") : "");

$("just-look").addEventListener("click", () => begin(null));
$("cancel").addEventListener("click", () => { stream?.cancel(); backToList(); });
$("result-back").addEventListener("click", backToList);
$("filter").addEventListener("input", renderNames);
$("fullscreen").addEventListener("click", () => {
  if (document.fullscreenElement) document.exitFullscreen(); else document.documentElement.requestFullscreen?.().catch(() => {});
});
main();
