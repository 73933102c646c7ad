// Attendance over a date range, per course and per student, for a professor's courses (or one)
// and for the administrator's every course: counts, the share attended, and the students under
// the chosen threshold flagged; the same report as a CSV download. The rule lives on the server
// (Sources/Attendance/Reports.swift); this page only asks and shows.
import { $, ATT, api, h, requireRole, status, badge, academicYear } from "/attendance/common.js";

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const iso = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;

/** The query of the form, for the JSON and the CSV alike (dates read in the browser's zone). */
function query() {
  const q = new URLSearchParams({ from: $("from").value, to: $("to").value, threshold: $("threshold").value, zone });
  if ($("course").value) q.set("course", $("course").value);
  return q.toString();
}

async function show() {
  $("csv").href = `${ATT}/report.csv?${query()}`;
  history.replaceState(null, "", `?${query()}`);
  let report;
  try {
    report = await api(`${ATT}/report?${query()}`);
  } catch (error) {
    status($("status"), error.message, "bad");
    return;
  }
  const flagged = report.courses.reduce((n, c) => n + c.flagged, 0);
  status($("status"), `${report.courses.length} course${report.courses.length === 1 ? "" : "s"}; ${flagged} student${flagged === 1 ? "" : "s"} under ${report.threshold}%.`,
    flagged ? "warn" : "ok");
  $("report").replaceChildren(...report.courses.map((course) => courseTable(course, report.threshold)));
  $("no-courses").classList.toggle("hidden", report.courses.length > 0);
}

function courseTable(course, threshold) {
  return h("section", { class: "panel", dataset: { course: course.courseID } },
    h("p", { class: "muted small" }, `${course.code} · ${course.academicYear}`),
    h("h2", {}, course.title),
    h("p", { class: "muted small" }, `${course.lecturesHeld} lecture${course.lecturesHeld === 1 ? "" : "s"} held · ${course.flagged} under ${threshold}%`),
    course.students.length === 0 ? h("p", { class: "muted" }, "No students.") :
      h("div", { class: "table-wrap" }, h("table", { class: "iv-table att-table reflow att-report-table" },
        h("thead", {}, h("tr", {}, ["Student", "Present", "Late", "Excused", "Absent", "Attended"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, course.students.map((s) => h("tr", { class: s.flagged ? "flagged" : "", dataset: { student: s.username } },
          h("th", { scope: "row" }, s.displayName, h("span", { class: "muted small" }, ` ${s.username}`)),
          h("td", { "data-label": "Present" }, s.present),
          h("td", { "data-label": "Late" }, s.late),
          h("td", { "data-label": "Excused" }, s.excused),
          h("td", { "data-label": "Absent" }, s.absent),
          h("td", { "data-label": "Attended", class: "att-share" }, s.percent == null ? "—" : `${s.percent.toFixed(1)}%`,
            s.flagged ? badge(`under ${threshold}%`, "absent") : null)))))));
}

$("range").addEventListener("submit", (event) => { event.preventDefault(); show(); });

async function main() {
  const session = await requireRole(["professor", "admin"], location.pathname + location.search);
  if (!session) return;
  if (session.user.role === "professor" && !(await api(`${ATT}/me`)).faceVerified) {
    location.replace(`/attendance/professor.html`);   // the face check first, as every attendance page
    return;
  }
  $("work").classList.remove("hidden");
  const params = new URLSearchParams(location.search);
  // Default: the academic year so far (from 1 September).
  $("from").value = params.get("from") ?? `${academicYear().slice(0, 4)}-09-01`;
  $("to").value = params.get("to") ?? iso(new Date());
  $("threshold").value = params.get("threshold") ?? "75";
  try {
    const courses = await api(`${ATT}/courses`);
    $("course").replaceChildren(h("option", { value: "" }, session.user.role === "admin" ? "All courses" : "All my courses"),
      ...courses.map((c) => h("option", { value: c.id, selected: c.id === params.get("course") }, `${c.code} · ${c.title} (${c.academicYear})`)));
  } catch (error) {
    status($("status"), error.message, "bad");
    return;
  }
  await show();
}
main();
