// What the attendance pages share: the API root, element building (no innerHTML: names come
// from users), dates, the role guard, and the face proof (the signed-in user's own face, live:
// the liveness challenge over the /api/v1/attendance/face-proof stream).
import { api, session, showAccountLink, status } from "/js/account.js";
import { CheckInStream, plainWords, promptFor, hintFor } from "/attendance/checkin.js";

export const ATT = "/api/v1/attendance";
export const $ = (id) => document.getElementById(id);

/** An element: h("li", {class: "x", onclick: f}, "text", child…). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") element.addEventListener(key.slice(2), value);
    else if (key === "class") element.className = value;
    else if (key === "dataset") Object.assign(element.dataset, value);
    else if (value === true) element.setAttribute(key, "");
    else element.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", year: "numeric" });
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
export const day = (ms) => dateFormat.format(new Date(ms));
export const clock = (ms) => timeFormat.format(new Date(ms));
export const span = (lecture) => `${day(lecture.startsAt)}, ${clock(lecture.startsAt)}–${clock(lecture.endsAt)}`;

/** The academic year a date falls in ("2026/27": September to August). */
export function academicYear(date = new Date()) {
  const first = date.getMonth() >= 8 ? date.getFullYear() : date.getFullYear() - 1;
  return `${first}/${String((first + 1) % 100).padStart(2, "0")}`;
}

export const STATE_WORDS = { scheduled: "Scheduled", open: "Open for check-in", confirmed: "Confirmed" };
export const STATUS_WORDS = { present: "Present", late: "Late", absent: "Absent", excused: "Excused" };
export const METHOD_WORDS = {
  "kiosk-verified": "kiosk, name picked", "kiosk-identified": "kiosk, recognised", "own-device": "own phone",
  "not-checked-in": "not checked in", "professor-edit": "edited by the professor",
};

export const badge = (text, tone = "") => h("span", { class: `badge ${tone}`.trim() }, text);

/**
 * The signed-in session when its role is one of `roles`; otherwise the page shows why in
 * `#gate` (with a sign-in link) and this resolves to null.
 */
export async function requireRole(roles, here) {
  const current = await session();
  await showAccountLink();
  const gate = $("gate");
  if (current && roles.includes(current.user.role)) {
    gate?.classList.add("hidden");
    return current;
  }
  if (gate) {
    gate.classList.remove("hidden");
    gate.replaceChildren(
      h("h2", {}, current ? "Not for your role" : "Sign in first"),
      h("p", {}, current ? `This page is for ${roles.join(" or ")} accounts; you are signed in as ${current.user.username} (${current.user.role}).`
                         : "Sign in with the account your administrator gave you."),
      h("div", { class: "actions" },
        h("a", { class: "button primary", href: current ? "/attendance/" : `/attendance/?next=${encodeURIComponent(here)}` },
          current ? "Back to Attendance" : "Sign in")));
  }
  return null;
}

/**
 * Proves the signed-in user's face, live: opens the camera in `box` (from `proofBox`), runs the
 * liveness challenge over the face-proof stream (the face, the actions the server asks for, the
 * face again) and resolves to the proof ({proof, distance}). A refusal is tried again up to
 * `tries` times, then rejects with the reason in plain words. The camera is closed afterwards.
 */
export async function faceProof(box, { tries = 3, onStatus } = {}) {
  const video = box.querySelector("video"), overlay = box.querySelector("canvas");
  const line = box.querySelector(".status"), prompt = box.querySelector(".proof-prompt");
  const say = (text, tone) => { if (line) status(line, text, tone); onStatus?.(text, tone); };
  box.classList.remove("hidden");
  box.querySelector(".stage")?.removeAttribute("data-verdict");
  let stream, settled = "bad";
  try {
    say("Opening the camera…");
    const proof = await new Promise((resolve, reject) => {
      let attempt = 1;
      const refused = (message) => {
        const words = plainWords(message);
        if (attempt >= tries || /no face is enrolled|not match/.test(message)) { reject(new Error(words)); return; }
        attempt += 1;
        say(`${words} Trying again (${attempt} of ${tries})…`, "warn");
        setTimeout(() => { if (!stream.begin()) reject(new Error("The connection closed: try again.")); }, 1500);
      };
      stream = new CheckInStream({
        url: `${ATT}/face-proof`, video, overlay,
        on: {
          step: (step) => {
            if (prompt) { prompt.textContent = promptFor(step); prompt.dataset.phase = step.phase; }
            say(step.problem ? step.message : hintFor(step));
          },
          proof: resolve,
          refused,
          error: (message) => { if (message.code === "refused") refused(message.message); },
          closed: () => reject(new Error("The connection closed: try again.")),
        },
      });
      stream.start().then(() => { stream.begin(); say("Look at the camera."); }, reject);
    });
    if (prompt) prompt.textContent = "Face confirmed";
    say("Face confirmed, live.", "ok");
    settled = "ok";
    return proof;
  } catch (error) {
    if (prompt) prompt.textContent = "Not confirmed";
    say(error.message, "bad");
    throw error;
  } finally {
    // The last picture stays on screen, framed in the verdict's colour, after the camera stops.
    if (overlay && video?.videoWidth) {
      overlay.width = video.videoWidth;
      overlay.height = video.videoHeight;
      overlay.getContext("2d").drawImage(video, 0, 0);
    }
    box.querySelector(".stage")?.setAttribute("data-verdict", settled);
    stream?.stop();
    if (video) video.srcObject = null;
  }
}

/** A face-proof box: the mirrored preview with the face boxes, the prompt and a status line (hidden until used). */
export function proofBox(label = "Your face") {
  return h("div", { class: "proof-box hidden", role: "group", "aria-label": label },
    h("div", { class: "stage mirrored proof-stage" }, h("video", { playsinline: true, muted: true, autoplay: true }),
      h("canvas", { "aria-hidden": "true" })),
    h("p", { class: "proof-prompt", "aria-live": "assertive" }),
    h("p", { class: "status", role: "status", "aria-live": "polite" }));
}

/** A file or Blob download of an API answer (CSV), keeping the server's file name. */
export async function download(path) {
  const response = await api(path, { raw: true, headers: { Accept: "text/csv" } });
  const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") ?? "")?.[1] ?? "attendance.csv";
  const url = URL.createObjectURL(await response.blob());
  const link = h("a", { href: url, download: name, class: "hidden" });
  document.body.append(link);
  link.click();
  setTimeout(() => { URL.revokeObjectURL(url); link.remove(); }, 1000);
  return name;
}

export { api, session, status };
