// The lecture's kiosk: a device the professor turned into the kiosk (it holds a kiosk token, not
// the professor's session). Students look at the camera (1:N) or type their name (1:1); the
// server checks the face, the liveness challenge and the face again, and records a pending
// check-in. Leaving takes the professor's password and their live face.
import { $, ATT, api, h, clock } from "/attendance/common.js";
import { CheckInStream, progressChips, promptFor, hintFor, plainWords } from "/attendance/checkin.js";

const RESULT_SECONDS = { ok: 4, bad: 5 };
/** Face checks to leave the kiosk before it says no (a person may miss a prompt). */
const LEAVE_TRIES = 3;
let about = null, stream = null, chosen = null, resultTimer = null, leaving = null, lastQuery = "";

function screen(name) {
  document.querySelector("main").dataset.screen = name;
  for (const id of ["pick", "checking", "leave", "result"]) $(id).classList.toggle("hidden", id !== name);
  $("problem").classList.add("hidden");
}

async function loadAbout() {
  about = await api(`${ATT}/kiosk`);
  $("course").textContent = `${about.courseCode} · ${about.courseTitle}`;
  $("title").textContent = about.lecture.title;
  $("count").textContent = `${about.checkedIn} of ${about.expected} checked in`;
  $("leave-who").textContent = `Only ${about.operatorName}, who opened this kiosk, can leave it: password, then face.`;
  const open = about.lecture.state === "open";
  $("just-look").disabled = !open;
  $("filter").disabled = !open;
  if (!open) {
    $("foot").textContent = about.lecture.state === "confirmed" ? "This lecture is confirmed: check-in is closed." : "This lecture is not open yet.";
  }
}

async function findNames() {
  const query = $("filter").value.trim();
  lastQuery = query;
  if (query.length < 2) {
    $("names").replaceChildren();
    $("names-hint").textContent = "Names appear as you type: the kiosk never lists the whole class.";
    return;
  }
  const found = await api(`${ATT}/kiosk/names?q=${encodeURIComponent(query)}`);
  if (query !== lastQuery) return;  // an older answer arriving late
  $("names-hint").textContent = found.length ? `${found.length} not checked in yet` : "Nobody still to check in has that name.";
  $("names").replaceChildren(...found.map((person) => h("li", {},
    h("button", { type: "button", class: "kiosk-name", disabled: !person.hasFace, dataset: { student: person.id }, onclick: () => begin(person) },
      h("span", { class: "avatar", "aria-hidden": "true" }, initials(person.displayName)),
      h("span", { class: "kiosk-name-text" }, person.displayName,
        person.hasFace ? null : h("small", {}, "no face enrolled: see the professor"))))));
}

const initials = (name) => name.split(/\s+/).filter(Boolean).slice(0, 2).map((w) => w[0].toUpperCase()).join("");

function begin(person) {
  clearTimeout(resultTimer);
  chosen = person;
  leaving = null;
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

function result(ok, title, text, hint) {
  screen("result");
  $("result").dataset.tone = ok ? "ok" : "bad";
  $("mark").textContent = ok ? "✓" : "✕";
  $("result-title").textContent = title;
  $("result-who").textContent = ok || !chosen ? "" : chosen.displayName;
  $("result-text").textContent = text;
  $("result-hint").textContent = hint ?? (ok ? "" : "Try again, or ask the professor if it keeps failing.");
  clearTimeout(resultTimer);
  let left = RESULT_SECONDS[ok ? "ok" : "bad"];
  const tick = () => {
    $("result-back").textContent = `Back to check-in (${Math.ceil(left)})`;
    if (left <= 0) { backToPick(); return; }
    left -= 1;
    resultTimer = setTimeout(tick, 1000);
  };
  tick();
}

function backToPick() {
  clearTimeout(resultTimer);
  chosen = null;
  leaving = null;
  $("filter").value = "";
  $("leave-password").value = "";
  findNames().catch(() => {});
  screen("pick");
  loadAbout().catch(ended);
}

/** The kiosk token no longer opens anything (ended from the professor's device, or expired). */
function ended(error) {
  if (error?.status !== 401) { $("foot").textContent = error?.message ?? String(error); return; }
  forgetKiosk();
  stream?.stop();
  gate("This device is not a kiosk", "Its kiosk ended (the professor ended it, or it expired). A professor makes a device the kiosk from the lecture's page.");
}

function gate(title, text) {
  $("gate").classList.remove("hidden");
  $("gate").replaceChildren(h("h2", {}, title), h("p", {}, text), h("a", { class: "button primary", href: "/attendance/" }, "Attendance home"));
  document.querySelector(".kiosk-head").classList.add("hidden");
  document.querySelector(".kiosk-grid").classList.add("hidden");
  screen("none");
}

/** Leaving: the password is typed, then the operator's face is proved live at this kiosk. */
function leaveWithFace(event) {
  event.preventDefault();
  clearTimeout(resultTimer);
  leaving = { password: $("leave-password").value, attempt: 1 };
  $("leave-password").value = "";
  if (!stream?.begin(null, "proof")) { $("foot").textContent = "Not connected: wait a moment."; leaving = null; return; }
  screen("checking");
  $("who").textContent = `${about?.operatorName ?? "The professor"}, to leave the kiosk`;
  $("prompt").textContent = "Look at the camera";
  $("message").textContent = "";
  $("chips").replaceChildren();
}

async function onProof(message) {
  const password = leaving?.password;
  leaving = null;
  try {
    const left = await api(`${ATT}/kiosk/leave`, { method: "POST", json: { password, proof: message.proof } });
    stream?.stop();
    location.assign(left.next);
  } catch (error) {
    result(false, "Still a kiosk", error.status === 403 && /password/.test(error.message) ? "Wrong password." : plainWords(error.message),
      "Only the professor who opened the kiosk can leave it.");
  }
}

/** Whether this browser was made a kiosk (a readable hint beside the HttpOnly token). */
const isKioskDevice = () => document.cookie.split("; ").includes("sentio_kiosk_device=1");
const forgetKiosk = () => { document.cookie = "sentio_kiosk_device=; Max-Age=0; Path=/; SameSite=Strict"; };

async function main() {
  if (!isKioskDevice()) {
    gate("This device is not a kiosk", "A professor makes a device the lecture's kiosk from the lecture's page, after their face check.");
    return;
  }
  try {
    await loadAbout();
  } catch (error) {
    if (error.status === 401) {
      forgetKiosk();
      gate("This device is not a kiosk", "A professor makes a device the lecture's kiosk from the lecture's page, after their face check.");
    } else {
      gate("The kiosk cannot start", error.message);
    }
    return;
  }
  screen("pick");
  stream = new CheckInStream({
    url: `${ATT}/kiosk/stream`, video: $("video"), overlay: $("overlay"),
    on: {
      step: onStep,
      checkedIn: (checkIn) => {
        result(true, `Welcome, ${checkIn.displayName}`, `Checked in at ${clock(checkIn.at)}. Your professor confirms the lecture at its end.`);
        loadAbout().catch(ended);
      },
      proof: onProof,
      refused: (message) => {
        if (leaving) {
          if (leaving.attempt < LEAVE_TRIES && !/no enrolled face|not match/.test(message)) {
            leaving.attempt += 1;
            $("message").textContent = `${plainWords(message)} Trying again (${leaving.attempt} of ${LEAVE_TRIES})…`;
            setTimeout(() => { if (leaving && !stream.begin(null, "proof")) leaving = null; }, 1500);
            return;
          }
          leaving = null;
          result(false, "Still a kiosk", plainWords(message), "Only the professor who opened the kiosk can leave it.");
          return;
        }
        result(false, "Not checked in", plainWords(message));
      },
      error: (message) => { if (message.code === "refused") result(false, "Not checked in", plainWords(message.message)); },
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
  setInterval(() => { if (document.querySelector("main").dataset.screen === "pick") loadAbout().catch(ended); }, 5000);
}

$("just-look").addEventListener("click", () => begin(null));
$("cancel").addEventListener("click", () => { stream?.cancel(); backToPick(); });
$("result-back").addEventListener("click", backToPick);
$("filter").addEventListener("input", () => { findNames().catch(ended); });
$("leave-start").addEventListener("click", () => { clearTimeout(resultTimer); stream?.cancel(); screen("leave"); $("leave-password").focus(); });
$("leave-cancel").addEventListener("click", backToPick);
$("leave-form").addEventListener("submit", leaveWithFace);
$("fullscreen").addEventListener("click", () => {
  if (document.fullscreenElement) document.exitFullscreen(); else document.documentElement.requestFullscreen?.().catch(() => {});
});
main();
