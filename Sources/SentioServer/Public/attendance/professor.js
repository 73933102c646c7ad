// A professor's courses: the face check after signing in, courses by academic year, a course's
// lectures by date, its weekly timetable (timetable.js), a new lecture, the CSV export. A lecture
// opens on its own page; the report over a date range is report.html.
import { $, ATT, api, h, requireRole, status, clock, day, academicYear, STATE_WORDS, badge, faceProof, proofBox, download } from "/attendance/common.js";
import { showTimetable } from "/attendance/timetable.js";

let me = null, courses = [], current = null;
const params = new URLSearchParams(location.search);

async function faceCheck() {
  const box = proofBox("Your face check");
  $("face-box-slot").replaceChildren(box);
  $("face-start").disabled = true;
  try {
    await faceProof(box);
    setTimeout(() => { $("face-check").classList.add("hidden"); showWork(); }, 1500);
  } catch {
    $("face-start").disabled = false;
    $("face-start").textContent = "Try again";
  }
}

async function showWork() {
  $("work").classList.remove("hidden");
  try {
    courses = await api(`${ATT}/courses`);
  } catch (error) {
    status($("status"), error.message, "bad");
    return;
  }
  const years = [...new Set([academicYear(), ...courses.map((c) => c.academicYear)])].sort().reverse();
  const wanted = params.get("year") ?? (courses.some((c) => c.academicYear === academicYear()) ? academicYear() : courses[0]?.academicYear ?? academicYear());
  $("year").replaceChildren(...years.map((y) => h("option", { value: y, selected: y === wanted }, y)));
  renderCourses();
  const course = courses.find((c) => c.id === params.get("course")) ?? (courses.filter((c) => c.academicYear === $("year").value).length === 1
    ? courses.find((c) => c.academicYear === $("year").value) : null);
  if (course) openCourse(course);
}

function renderCourses() {
  const year = $("year").value;
  const shown = courses.filter((c) => c.academicYear === year);
  $("courses").replaceChildren(...shown.map((course) => h("li", {},
    h("button", { type: "button", class: `att-item${current?.id === course.id ? " chosen" : ""}`, "aria-pressed": String(current?.id === course.id),
                  dataset: { course: course.id }, onclick: () => openCourse(course) },
      h("span", { class: "att-item-main" }, h("strong", {}, course.code), " ", course.title),
      h("span", { class: "att-item-meta" }, `${course.students} student${course.students === 1 ? "" : "s"}`)))));
  $("no-courses").classList.toggle("hidden", shown.length > 0);
}

async function openCourse(course) {
  current = course;
  renderCourses();
  history.replaceState(null, "", `?year=${encodeURIComponent(course.academicYear)}&course=${encodeURIComponent(course.id)}`);
  $("course").classList.remove("hidden");
  $("course-code").textContent = `${course.code} · ${course.academicYear}`;
  $("course-title").textContent = course.title;
  $("course-meta").textContent = `${course.students} enrolled · taught by ${course.professors.map((p) => p.displayName).join(", ") || "—"}`;
  const now = new Date();
  $("lecture-date").value = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, "0")}-${String(now.getDate()).padStart(2, "0")}`;
  const hhmm = (d) => `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  $("lecture-start").value = hhmm(now);
  $("lecture-end").value = hhmm(new Date(now.getTime() + 90 * 60000));
  $("slot-first").value ||= $("lecture-date").value;
  await Promise.all([loadLectures(), showTimetable(course, loadLectures)]);
}

async function loadLectures() {
  let lectures;
  try {
    lectures = await api(`${ATT}/courses/${encodeURIComponent(current.id)}/lectures`);
  } catch (error) {
    status($("status"), error.message, "bad");
    return;
  }
  // By date: the coming and open ones first, then the past, newest first.
  const byDay = new Map();
  for (const lecture of lectures) {
    const key = day(lecture.startsAt);
    if (!byDay.has(key)) byDay.set(key, []);
    byDay.get(key).push(lecture);
  }
  $("lectures").replaceChildren(...[...byDay.entries()].map(([date, items]) => h("li", {},
    h("p", { class: "att-day" }, date),
    h("ul", {}, items.map((lecture) => h("li", {},
      h("a", { class: "att-lecture", href: `/attendance/lecture.html?lecture=${encodeURIComponent(lecture.id)}`, dataset: { lecture: lecture.id } },
        h("span", { class: "att-item-main" }, lecture.title),
        h("span", { class: "att-item-meta" }, `${clock(lecture.startsAt)}–${clock(lecture.endsAt)}`),
        badge(STATE_WORDS[lecture.state], lecture.state))))))));
  $("no-lectures").classList.toggle("hidden", lectures.length > 0);
  $("new-lecture-box").open = lectures.length === 0;
}

$("new-lecture").addEventListener("submit", async (event) => {
  event.preventDefault();
  const startsAt = new Date(`${$("lecture-date").value}T${$("lecture-start").value}`).getTime();
  let endsAt = new Date(`${$("lecture-date").value}T${$("lecture-end").value}`).getTime();
  if (endsAt <= startsAt) endsAt += 24 * 3600 * 1000;  // ends after midnight
  try {
    const lecture = await api(`${ATT}/courses/${encodeURIComponent(current.id)}/lectures`, { method: "POST", json: { title: $("lecture-title").value.trim(), startsAt, endsAt } });
    status($("lecture-status"), `Added “${lecture.title}”.`, "ok");
    $("lecture-title").value = "";
    await loadLectures();
  } catch (error) {
    status($("lecture-status"), error.message, "bad");
  }
});

$("export").addEventListener("click", async () => {
  try { status($("status"), `Downloaded ${await download(`${ATT}/courses/${encodeURIComponent(current.id)}/attendance.csv`)}.`, "ok"); }
  catch (error) { status($("status"), error.message, "bad"); }
});
$("year").addEventListener("change", () => { current = null; $("course").classList.add("hidden"); renderCourses(); });
$("face-start").addEventListener("click", faceCheck);

async function main() {
  const session = await requireRole(["professor", "admin"], location.pathname + location.search);
  if (!session) return;
  me = await api(`${ATT}/me`);
  if (session.user.role === "professor" && !me.faceVerified) {
    $("face-check").classList.remove("hidden");
    faceCheck();
  } else {
    showWork();
  }
}
main();
