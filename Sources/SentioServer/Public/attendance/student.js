// A student's own attendance, per course with percentages, the professor's remarks and their own
// refused check-ins (nobody else's: the server answers only the signed-in student's), and
// check-in from their own phone with the room's code.
import { $, ATT, api, h, requireRole, status, day, clock, STATUS_WORDS, badge } from "/attendance/common.js";
import { CheckInStream, progressChips, promptFor, hintFor } from "/attendance/checkin.js";

let stream = null;

async function load() {
  let courses;
  try {
    courses = await api(`${ATT}/my-attendance`);
  } catch (error) {
    status($("status"), error.message, "bad");
    return;
  }
  $("courses").replaceChildren(...courses.map((entry) => {
    const { course, lectures, confirmed, percent, refused = [] } = entry;
    const share = percent == null ? null : Math.round(percent);
    const tone = share == null ? "" : share >= 80 ? "good" : share >= 60 ? "fair" : "poor";
    return h("li", { class: "panel att-course-card", dataset: { course: course.id } },
      h("div", { class: "att-course-card-head" },
        h("div", {}, h("p", { class: "muted small" }, `${course.code} · ${course.academicYear}`), h("h3", {}, course.title)),
        share == null ? h("div", { class: "att-percent none" }, "No data yet")
          : h("div", { class: `att-percent ${tone}`, "aria-label": `${share} percent attended` }, `${share}%`)),
      h("div", { class: "att-bar", role: "presentation" }, barFill(share, tone)),
      h("p", { class: "muted small" }, confirmed === 0 ? "No lecture confirmed yet." :
        `${lectures.filter((l) => l.status === "present" || l.status === "late").length} of ${lectures.filter((l) => l.status && l.status !== "excused").length} confirmed lectures attended`),
      h("ul", { class: "att-mylectures" }, [...lectures].reverse().map((item) => h("li", { dataset: { lecture: item.lecture.id } },
        h("span", { class: "att-item-main" }, item.lecture.title),
        h("span", { class: "att-item-meta" }, `${day(item.lecture.startsAt)} ${clock(item.lecture.startsAt)}`),
        item.status ? badge(STATUS_WORDS[item.status], item.status) : badge(item.lecture.state === "open" ? "Open now" : "Not confirmed", "pending"),
        item.remark ? h("span", { class: "att-remark" }, item.remark) : null))),
      refusedList(refused));
  }));
  $("no-courses").classList.toggle("hidden", courses.length > 0);
}

/**
 * The student's own refused check-ins (the server sends only theirs, in plain words, without
 * distances): someone else trying in their name shows up here too.
 */
function refusedList(refused) {
  if (refused.length === 0) return null;
  return h("div", { class: "att-refused" },
    h("h4", {}, `Refused check-ins (${refused.length})`),
    h("ul", { class: "att-mylectures" }, refused.map((r) => h("li", { dataset: { refusedLecture: r.lectureID } },
      h("span", { class: "att-item-main" }, r.lectureTitle),
      h("span", { class: "att-item-meta" }, `${day(r.at)} ${clock(r.at)}`),
      badge("Refused", "absent"),
      h("span", { class: "att-remark" }, r.reason)))),
    h("p", { class: "muted small" }, "Not you? Tell your professor: someone tried to check in with your name."));
}

/** The bar in the same colour as the figure above it (a red 50 % on a green bar read as a contradiction). */
function barFill(share, tone) {
  const fill = h("span", { class: `att-bar-fill ${tone}`.trim() });
  fill.style.width = `${share ?? 0}%`;  // CSSOM, allowed by the pages' Content-Security-Policy
  return fill;
}

function stop(text, tone) {
  stream?.stop();
  stream = null;
  $("phone").classList.add("hidden");
  $("code-go").disabled = false;
  if (text) status($("checkin-status"), text, tone);
}

$("code-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const code = $("room-code").value.replace(/\s+/g, "");
  if (!/^\d{8}$/.test(code)) { status($("checkin-status"), "The code has eight digits.", "bad"); return; }
  $("code-go").disabled = true;
  status($("checkin-status"), "Looking up the code…");
  // Which lecture the code opens, before the camera: a wrong code, or a code of a course the
  // student is not in, is said in words here (a refused WebSocket cannot say why).
  let found;
  try {
    found = await api(`${ATT}/checkin/lecture?code=${code}`);
  } catch (error) {
    $("code-go").disabled = false;
    status($("checkin-status"), error.status === 404 ? "No open lecture of your courses has this code: check it, and that the lecture is open."
      : error.message[0].toUpperCase() + error.message.slice(1) + ".", "bad");
    return;
  }
  status($("checkin-status"), `${found.courseCode} · ${found.lecture.title}`);
  $("phone").classList.remove("hidden");
  $("prompt").textContent = "Starting the camera…";
  $("chips").replaceChildren();
  stream = new CheckInStream({
    url: `${ATT}/checkin?code=${code}`, video: $("video"), overlay: $("overlay"),
    on: {
      step: (step) => {
        $("prompt").textContent = promptFor(step);
        $("prompt").dataset.phase = step.phase;
        $("message").textContent = hintFor(step);
        $("problem").textContent = step.problem ? step.message : "";
        $("problem").classList.toggle("hidden", !step.problem);
        $("chips").replaceChildren(...progressChips(h, step));
      },
      checkedIn: (checkIn) => { stop(`Checked in at ${clock(checkIn.at)}. Your professor confirms the lecture at its end.`, "ok"); load(); },
      refused: (message) => stop(`Not checked in: ${message}`, "bad"),
      error: (message) => { if (message.code === "refused") stop(`Not checked in: ${message.message}`, "bad"); },
      closed: () => { if (stream) stop("The connection closed.", "bad"); },
    },
  });
  try {
    await stream.start();
    $("prompt").textContent = "Look at the camera";
    stream.begin();
  } catch (error) {
    stop(error.message.replace("(is the lecture still open, and are you signed in?)", "— check the code: it works only while the lecture is open."), "bad");
  }
});
$("stop").addEventListener("click", () => { stream?.cancel(); stop("Stopped.", ""); });

async function main() {
  if (!(await requireRole(["student"], location.pathname))) return;
  $("work").classList.remove("hidden");
  await load();
  const code = new URLSearchParams(location.search).get("code");
  if (code) $("room-code").value = code;
}
main();
