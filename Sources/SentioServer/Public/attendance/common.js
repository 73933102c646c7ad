// What the attendance pages share: the API root, element building (no innerHTML: names come
// from users), dates, the role guard, and the face proof (a frame of the signed-in user's own
// face from the camera, POST /api/v1/attendance/face-proof, tried a few times on its own).
import { api, session, showAccountLink, status } from "/js/account.js";
import { openCamera, grabJPEG } from "/js/camera.js";

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
 * Proves the signed-in user's face: opens the camera in `box` (an element with a video, a
 * canvas and a status line), sends a frame every second until the server accepts one (at most
 * `tries`), and resolves to the proof ({proof, distance, expiresInSeconds}). The camera is
 * closed afterwards. Rejects with the last reason.
 */
export async function faceProof(box, { tries = 6, onStatus } = {}) {
  const video = box.querySelector("video"), canvas = box.querySelector("canvas") ?? h("canvas");
  const line = box.querySelector(".status");
  const say = (text, tone) => { if (line) status(line, text, tone); onStatus?.(text, tone); };
  box.classList.remove("hidden");
  let stream, settled = "bad", grabbed = false;
  try {
    say("Opening the camera…");
    stream = await openCamera(video);
    let last = "no frame";
    for (let attempt = 1; attempt <= tries; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, attempt === 1 ? 600 : 900));
      say(attempt === 1 ? "Look straight at the camera…" : `Checking again (${attempt} of ${tries}): ${last}`, attempt === 1 ? "" : "warn");
      const frame = await grabJPEG(video, canvas, 0.9);
      grabbed = true;
      try {
        const proof = await api(`${ATT}/face-proof`, { method: "POST", body: frame, type: "image/jpeg" });
        say(`Face confirmed (distance ${proof.distance.toFixed(2)}).`, "ok");
        settled = "ok";
        return proof;
      } catch (error) {
        last = error.message;
        if (error.status === 401 || error.status === 429 || /no enrolled face/.test(last)) break;
      }
    }
    say(last, "bad");
    throw new Error(last);
  } finally {
    // The frame that was judged stays on screen, framed in the verdict's colour.
    if (grabbed) { canvas.classList.remove("hidden"); video?.classList.add("hidden"); }
    box.querySelector(".stage")?.setAttribute("data-verdict", settled);
    stream?.getTracks().forEach((track) => track.stop());
    if (video) video.srcObject = null;
  }
}

/** A face-proof box: the mirrored preview and a status line (hidden until used). */
export function proofBox(label = "Your face") {
  return h("div", { class: "proof-box hidden", role: "group", "aria-label": label },
    h("div", { class: "stage mirrored proof-stage" }, h("video", { playsinline: true, muted: true, autoplay: true }),
      h("canvas", { class: "hidden", "aria-hidden": "true" })),
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
