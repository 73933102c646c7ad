// One lecture for its professor: open it, the room code, the kiosk, the live roll (refreshed),
// the headcount and the confirmation with the professor's face, the saved records with their
// remarks (each change of status and remark face-confirmed), the audit trail.
import { $, ATT, api, h, requireRole, status, span, clock, day, STATE_WORDS, STATUS_WORDS, METHOD_WORDS, badge,
         faceProof, proofBox, download } from "/attendance/common.js";

const lectureID = new URLSearchParams(location.search).get("lecture") ?? "";
const path = `${ATT}/lectures/${encodeURIComponent(lectureID)}`;
let roll = null, timer = null, names = new Map();

async function load() {
  roll = await api(path);
  const { lecture, course } = roll;
  for (const p of [...roll.missing, ...course.professors]) names.set(p.id, p.displayName);
  for (const c of roll.checkedIn) names.set(c.studentID, c.displayName);
  for (const r of roll.records) names.set(r.studentID, r.displayName);
  document.title = `${lecture.title} — Sentio Attendance`;
  $("crumb").replaceChildren(h("a", { href: `/attendance/professor.html?year=${encodeURIComponent(course.academicYear)}&course=${encodeURIComponent(course.id)}` },
    `${course.code} · ${course.title}`), ` · ${course.academicYear}`);
  $("title").textContent = lecture.title;
  $("state").textContent = STATE_WORDS[lecture.state];
  $("state").className = `badge ${lecture.state}`;
  $("when").textContent = span(lecture);
  $("scheduled").classList.toggle("hidden", lecture.state !== "scheduled");
  $("live").classList.toggle("hidden", lecture.state !== "open");
  $("confirmed").classList.toggle("hidden", lecture.state !== "confirmed");
  $("records-panel").classList.toggle("hidden", lecture.state !== "confirmed");
  if (lecture.state === "open") renderLive();
  if (lecture.state === "confirmed") renderRecords();
  if ($("audit-box").open) loadAudit();
}

function renderLive() {
  const { lecture, checkedIn, missing } = roll;
  // Eight digits in two groups of four, easier to read across a lecture hall.
  $("code").textContent = lecture.checkinCode ? lecture.checkinCode.replace(/^(\d{4})(\d{4})$/, "$1 $2") : "—";
  $("checked-count").textContent = checkedIn.length;
  $("missing-count").textContent = missing.length;
  $("checked-in").replaceChildren(...checkedIn.map((c) => h("li", { dataset: { student: c.studentID } },
    h("span", { class: "att-person-name" }, c.displayName),
    h("span", { class: "att-person-meta" }, `${clock(c.at)} · ${METHOD_WORDS[c.method] ?? c.method}`,
      h("span", { class: "att-tech" }, ` · distance ${c.distance.toFixed(2)}`)))));
  $("missing").replaceChildren(...missing.map((p) => h("li", { dataset: { student: p.id } },
    h("span", { class: "att-person-name" }, p.displayName),
    h("span", { class: "att-person-meta" }, p.faces ? p.username : `${p.username} · no face enrolled`))));
  $("none-checked").classList.toggle("hidden", checkedIn.length > 0);
  $("none-missing").classList.toggle("hidden", missing.length > 0);
  $("refreshed").textContent = `Updated ${clock(Date.now())}; refreshes every 3 s.`;
}

function renderRecords() {
  const { lecture, records } = roll;
  const counts = { present: 0, late: 0, absent: 0, excused: 0 };
  for (const r of records) counts[r.status] += 1;
  $("summary").replaceChildren(...Object.entries(counts).map(([k, v]) => h("div", { class: `stat-${k}` }, h("dt", {}, STATUS_WORDS[k]), h("dd", {}, v))));
  const verified = counts.present + counts.late;
  $("headcount-line").textContent = lecture.headcount == null ? `Confirmed ${day(lecture.confirmedAt)} at ${clock(lecture.confirmedAt)}; no headcount given.`
    : `Headcount ${lecture.headcount}; ${verified} present or late now: ${headcountWords(lecture.headcount - verified)}`;
  $("records").tBodies[0].replaceChildren(...records.map((r) => h("tr", { dataset: { student: r.studentID } },
    h("th", { scope: "row" }, r.displayName),
    h("td", { "data-label": "Status" }, badge(STATUS_WORDS[r.status], r.status)),
    h("td", { "data-label": "How" }, METHOD_WORDS[r.method] ?? r.method),
    h("td", { "data-label": "Decided" }, clock(r.decidedAt)),
    h("td", { class: `att-remark-cell${r.remark ? "" : " empty"}`, "data-label": "Remark" }, r.remark ?? "—"),
    h("td", { "data-label": "Change" }, document.body.classList.contains("read-only") ? "—" : editor(r)))));
}

function headcountWords(difference) {
  if (difference === 0) return "they agree.";
  return difference > 0 ? `${difference} more in the room than checked in.` : `${-difference} checked in who were not counted.`;
}

function editor(record) {
  const select = h("select", { "aria-label": `New status for ${record.displayName}` },
    Object.entries(STATUS_WORDS).map(([value, words]) => h("option", { value, selected: value === record.status }, words)));
  // The remark goes with the status in the same face-confirmed change (one line, 200 characters).
  const remark = h("input", { type: "text", class: "att-remark-input", maxlength: 200, value: record.remark ?? "", placeholder: "Remark (optional)",
                              "aria-label": `Remark for ${record.displayName}` });
  const button = h("button", { type: "button", class: "small-button" }, "Change");
  button.addEventListener("click", async () => {
    const text = remark.value.trim();
    if (select.value === record.status && text === (record.remark ?? "")) { status($("status"), "Pick another status or write a remark first.", "warn"); return; }
    button.disabled = true;
    const box = proofBox("Your face, to change the record");
    $("edit-face").replaceChildren(h("p", {}, `Changing ${record.displayName} to ${STATUS_WORDS[select.value].toLowerCase()}` +
      (text ? ` (“${text}”)` : "") + ": look at the camera."), box);
    try {
      const { proof } = await faceProof(box);
      await api(`${path}/records/${encodeURIComponent(record.studentID)}`, { method: "PUT", json: { status: select.value, remark: text, proof } });
      status($("status"), `${record.displayName}: ${STATUS_WORDS[select.value].toLowerCase()}${text ? `, “${text}”` : ""} (face-confirmed).`, "ok");
      $("edit-face").replaceChildren();
      await load();
    } catch (error) {
      status($("status"), error.message, "bad");
      button.disabled = false;
    }
  });
  return h("span", { class: "att-edit" }, select, remark, button);
}

/** The audit's actions and outcomes in words (the raw names stay in data-action/data-outcome). */
const ACTION_WORDS = {
  checkin: "Check-in", "face.proof": "Face check", "lecture.create": "Lecture planned", "lecture.open": "Opened for check-in",
  "lecture.confirm": "Lecture confirmed", "record.edit": "Record changed", "kiosk.start": "Kiosk started", "kiosk.end": "Kiosk ended",
  "kiosk.leave": "Leaving the kiosk",
};
const OUTCOME_WORDS = { ok: "Done", refused: "Refused", pending: "Checked in" };

/**
 * Who an audit row is about, without blaming a person for a stranger: a refused check-in names
 * only whom the person at the camera claimed to be.
 */
function auditWho(e, name) {
  if (e.action === "checkin" && e.outcome === "refused") return e.subject ? `Someone claiming to be ${name(e.subject)}` : "Someone not recognised";
  if (e.action === "kiosk.leave" && e.outcome === "refused") return `Someone at the kiosk, as ${name(e.subject)}`;
  if (e.action === "checkin") return `${name(e.subject)} (kiosk of ${name(e.actor)})`;
  return e.subject && e.subject !== e.actor ? `${name(e.subject)} (by ${name(e.actor)})` : name(e.actor ?? e.subject);
}

async function loadAudit() {
  const name = (id) => (id ? names.get(id) ?? "someone else" : "—");
  try {
    const entries = await api(`${path}/audit`);
    $("audit").tBodies[0].replaceChildren(...entries.map((e) => h("tr", { class: e.outcome === "refused" ? "refused" : "", dataset: { action: e.action, outcome: e.outcome } },
      h("th", { scope: "row" }, `${day(e.at)} ${clock(e.at)}`),
      h("td", { "data-label": "What" }, ACTION_WORDS[e.action] ?? e.action),
      h("td", { "data-label": "Who" }, auditWho(e, name)),
      h("td", { "data-label": "Outcome" }, badge(OUTCOME_WORDS[e.outcome] ?? e.outcome, e.outcome === "refused" ? "absent" : e.outcome === "pending" ? "late" : "present")),
      h("td", { class: "att-tech", "data-label": "Distance" }, e.distance == null ? "—" : e.distance.toFixed(3)),
      h("td", { class: "att-detail att-tech", "data-label": "Liveness / detail" }, [e.liveness, e.detail].filter(Boolean).join(" · ") || "—"))));
  } catch (error) {
    status($("status"), error.message, "bad");
  }
}

$("audit-tech").addEventListener("change", () => $("audit").classList.toggle("show-tech", $("audit-tech").checked));

$("open").addEventListener("click", async () => {
  $("open").disabled = true;
  try {
    await api(`${path}/open`, { method: "POST" });
    status($("status"), "Open: students can check in now.", "ok");
    await load();
  } catch (error) {
    status($("status"), error.message, "bad");
  } finally {
    $("open").disabled = false;
  }
});

$("confirm-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const raw = $("headcount").value.trim();
  const headcount = raw === "" ? null : Number(raw);
  if (headcount !== null && !(Number.isInteger(headcount) && headcount >= 0)) { status($("status"), "The headcount is a whole number.", "bad"); return; }
  $("confirm").disabled = true;
  const box = proofBox("Your face, to confirm the lecture");
  $("confirm-face").replaceChildren(box);
  try {
    const { proof } = await faceProof(box);
    const result = await api(`${path}/confirm`, { method: "POST", json: { headcount, proof } });
    const diff = result.headcountDifference;
    status($("status"), `Confirmed: ${result.present} present, ${result.late} late, ${result.absent} absent` +
      (diff == null ? "." : `; headcount ${diff === 0 ? "agrees" : diff > 0 ? `${diff} more than checked in` : `${-diff} fewer than checked in`}.`), "ok");
    $("confirm-face").replaceChildren();
    clearInterval(timer);
    await load();
  } catch (error) {
    status($("status"), error.message, "bad");
  } finally {
    $("confirm").disabled = false;
  }
});

$("export").addEventListener("click", async () => {
  try { status($("status"), `Downloaded ${await download(`${ATT}/courses/${encodeURIComponent(roll.course.id)}/attendance.csv`)}.`, "ok"); }
  catch (error) { status($("status"), error.message, "bad"); }
});
$("audit-box").addEventListener("toggle", () => { if ($("audit-box").open) loadAudit(); });

async function main() {
  const session = await requireRole(["professor", "admin"], location.pathname + location.search);
  if (!session) return;
  if (session.user.role === "professor" && !(await api(`${ATT}/me`)).faceVerified) {
    location.replace(`/attendance/professor.html`);
    return;
  }
  $("work").classList.remove("hidden");
  if (session.user.role !== "professor") {
    // Confirming and changing records are the course professor's, with their face.
    $("confirm-form").replaceChildren(h("p", { class: "note wide" }, "Only the course's professor confirms the lecture, with their face."));
    document.body.classList.add("read-only");
  }
  try {
    await load();
  } catch (error) {
    status($("status"), error.message, "bad");
    return;
  }
  timer = setInterval(() => { if (roll?.lecture.state !== "confirmed") load().catch(() => {}); }, 3000);
}
main();

/** This browser becomes the lecture's kiosk: the server ends the session here and hands it a kiosk token. */
$("kiosk").addEventListener("click", async () => {
  const sure = window.confirm("Make this device the lecture's kiosk?\n\nYou will be signed out on this device. It will do check-ins only; "
    + "leaving the kiosk takes your password and your face.");
  if (!sure) return;
  $("kiosk").disabled = true;
  try {
    const made = await api(`${path}/kiosk-device`, { method: "POST" });
    location.assign(made.page);
  } catch (error) {
    status($("status"), error.message, "bad");
    $("kiosk").disabled = false;
  }
});

$("end-kiosks").addEventListener("click", async () => {
  try {
    const { ended } = await api(`${path}/kiosk-device`, { method: "DELETE" });
    status($("status"), ended ? `Ended ${ended === 1 ? "the kiosk" : `${ended} kiosks`}: ${ended === 1 ? "it does" : "they do"} no more check-ins.` : "No kiosk of this lecture is running.", "ok");
  } catch (error) {
    status($("status"), error.message, "bad");
  }
});
