// The administrator: people with their enrolled faces (photos with consent, deletion), courses
// by academic year with professors and students, CSV import (first passwords shown once), and
// handing the administrator role over (password and face).
import { $, ATT, api, h, requireRole, status, academicYear, badge, faceProof, proofBox } from "/attendance/common.js";

let me = null, people = [], courses = [], chosenPerson = null, chosenCourse = null;
const ROLE_WORDS = { admin: "Administrator", professor: "Professor", student: "Student", player: "Player" };

async function loadPeople() {
  people = await api(`${ATT}/people`);
  renderPeople();
  const professors = people.filter((p) => p.role === "professor");
  $("assign").replaceChildren(...professors.map((p) => h("option", { value: p.id }, `${p.displayName} (${p.username})`)));
  const students = people.filter((p) => p.role === "student");
  $("enrol-student").replaceChildren(...students.map((p) => h("option", { value: p.id }, `${p.displayName} (${p.username})`)));
  // The hand-over names a person on purpose: no one is chosen until the administrator picks
  // (a default would be the first name in the list, often a student); professors come first.
  const order = { professor: 0, admin: 1, student: 2, player: 3 };
  const others = people.filter((p) => p.id !== me.user.id).sort((a, b) => (order[a.role] ?? 9) - (order[b.role] ?? 9));
  $("h-user").replaceChildren(h("option", { value: "", disabled: true, selected: true }, "Choose a person…"),
    ...others.map((p) => h("option", { value: p.id }, `${p.displayName} (${ROLE_WORDS[p.role] ?? p.role})`)));
}

function renderPeople() {
  const role = $("role-filter").value;
  $("people").tBodies[0].replaceChildren(...people.filter((p) => !role || p.role === role).map((p) => h("tr", {
      class: chosenPerson?.id === p.id ? "chosen" : "", dataset: { person: p.id, username: p.username } },
    h("th", { scope: "row" }, p.displayName),
    h("td", { "data-label": "User name" }, p.username),
    h("td", { "data-label": "Role" }, ROLE_WORDS[p.role] ?? p.role),
    h("td", { "data-label": "Faces" }, p.faces ? badge(`${p.faces} face${p.faces === 1 ? "" : "s"}`, "present")
      : p.staleFaces ? badge("enrol again", "late") : badge("none", "absent")),
    h("td", { "data-label": "" }, h("button", { type: "button", class: "small-button", "aria-label": `Faces of ${p.displayName}`, onclick: () => choosePerson(p) }, "Faces…")))));
}

async function choosePerson(person) {
  chosenPerson = person;
  renderPeople();
  $("enrol").classList.remove("hidden");
  $("enrol-who").textContent = `${person.displayName} (${person.username}) · ${person.faces} enrolled`;
  $("enrol-results").replaceChildren();
  $("enrol-files").value = "";
  $("consent").checked = false;
  await showPhotos();
  $("enrol").scrollIntoView({ block: "nearest" });
}

async function showPhotos() {
  const person = chosenPerson;
  try {
    const faces = await api(`${ATT}/people/${encodeURIComponent(person.id)}/faces`);
    $("enrol-who").textContent = `${person.displayName} (${person.username}) · ${faces.faces} enrolled, ${faces.photos.length} photo${faces.photos.length === 1 ? "" : "s"} kept`;
    // Photos enrolled with the server's former descriptor are never compared: say so, and
    // offer to enrol the kept ones again (the others need new photos).
    const stale = $("stale-faces");
    stale.classList.toggle("hidden", !faces.staleFaces);
    if (faces.staleFaces) {
      const n = faces.staleFaces;
      stale.replaceChildren(h("span", {}, `${n} older photo${n === 1 ? " was" : "s were"} enrolled with a former face model and ${n === 1 ? "is" : "are"} no longer compared. `),
        faces.staleKeptPhotos
          ? h("button", { type: "button", class: "small-button", id: "reenrol", onclick: reenrol },
              `Enrol again from the ${faces.staleKeptPhotos} kept photo${faces.staleKeptPhotos === 1 ? "" : "s"}`)
          : h("span", {}, "Enrol new photos of this person."));
    }
    $("kept-photos").replaceChildren(...faces.photos.map((id) => h("img", { src: `${ATT}/people/${encodeURIComponent(person.id)}/faces/${encodeURIComponent(id)}`,
      alt: `Kept photo of ${person.displayName}`, loading: "lazy" })));
  } catch (error) {
    status($("status"), error.message, "bad");
  }
}

$("enrol-go").addEventListener("click", async () => {
  const files = [...$("enrol-files").files];
  if (!files.length) { status($("status"), "Choose one or more photos first.", "warn"); return; }
  const keep = $("consent").checked;
  $("enrol-go").disabled = true;
  const results = $("enrol-results");
  results.replaceChildren();
  let accepted = 0;
  for (const file of files) {
    const line = h("li", {}, h("span", { class: "att-file" }, file.name), " ", h("span", { class: "muted" }, "checking…"));
    results.append(line);
    try {
      const answer = await api(`${ATT}/people/${encodeURIComponent(chosenPerson.id)}/faces?keepPhoto=${keep}`, { method: "POST", body: file, type: file.type || "image/jpeg" });
      accepted += 1;
      line.className = "ok";
      line.lastChild.replaceWith(h("span", {}, `enrolled (head turned ${Math.round(answer.yaw)}°${answer.keptPhoto ? ", photo kept" : ""}) · ${answer.faces} in all`));
    } catch (error) {
      line.className = "bad";
      line.lastChild.replaceWith(h("span", {}, `refused: ${error.message}`));
    }
  }
  status($("status"), `${accepted} of ${files.length} photo${files.length === 1 ? "" : "s"} enrolled for ${chosenPerson.displayName}.`, accepted ? "ok" : "bad");
  $("enrol-go").disabled = false;
  await loadPeople();
  chosenPerson = people.find((p) => p.id === chosenPerson.id) ?? chosenPerson;
  renderPeople();
  await showPhotos();
  if (chosenCourse) await chooseCourse(chosenCourse.id);
});

async function reenrol() {
  const button = $("reenrol");
  button.disabled = true;
  button.textContent = "Enrolling again…";
  try {
    const answer = await api(`${ATT}/people/${encodeURIComponent(chosenPerson.id)}/reenrol`, { method: "POST" });
    const refused = answer.refused.length ? ` ${answer.refused.length} refused: ${answer.refused.join("; ")}` : "";
    status($("status"), `${answer.reenrolled} kept photo${answer.reenrolled === 1 ? "" : "s"} of ${chosenPerson.displayName} enrolled again.${refused}`,
      answer.refused.length ? "warn" : "ok");
    await loadPeople();
    chosenPerson = people.find((p) => p.id === chosenPerson.id) ?? chosenPerson;
    renderPeople();
    await showPhotos();
  } catch (error) {
    status($("status"), error.message, "bad");
    button.disabled = false;
  }
}

$("delete-faces").addEventListener("click", async () => {
  if (!confirm(`Delete every face descriptor and kept photo of ${chosenPerson.displayName}? They cannot check in until enrolled again.`)) return;
  try {
    await api(`${ATT}/people/${encodeURIComponent(chosenPerson.id)}/faces`, { method: "DELETE" });
    status($("status"), `Face data of ${chosenPerson.displayName} deleted.`, "ok");
    await loadPeople();
    chosenPerson = people.find((p) => p.id === chosenPerson.id) ?? chosenPerson;
    await choosePerson(chosenPerson);
  } catch (error) {
    status($("status"), error.message, "bad");
  }
});

$("new-person").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const user = await api("/api/v1/users", { method: "POST", json: {
      username: $("p-username").value.trim(), displayName: $("p-name").value.trim(), role: $("p-role").value, password: $("p-password").value } });
    status($("status"), `Added ${user.displayName} (${user.username}).`, "ok");
    event.target.reset();
    await loadPeople();
  } catch (error) {
    status($("status"), error.message, "bad");
  }
});
$("role-filter").addEventListener("change", renderPeople);

// Courses

async function loadCourses() {
  courses = await api(`${ATT}/courses`);
  const years = [...new Set([academicYear(), ...courses.map((c) => c.academicYear)])].sort().reverse();
  const wanted = $("year").value || academicYear();
  $("year").replaceChildren(...years.map((y) => h("option", { value: y, selected: y === wanted }, y)));
  renderCourses();
}

function renderCourses() {
  const shown = courses.filter((c) => c.academicYear === $("year").value);
  $("courses").replaceChildren(...shown.map((course) => h("li", {},
    h("button", { type: "button", class: `att-item${chosenCourse?.id === course.id ? " chosen" : ""}`, dataset: { course: course.id },
                  "aria-pressed": String(chosenCourse?.id === course.id), onclick: () => chooseCourse(course.id) },
      h("span", { class: "att-item-main" }, h("strong", {}, course.code), " ", course.title),
      h("span", { class: "att-item-meta" }, `${course.professors.map((p) => p.displayName).join(", ") || "no professor"} · ${course.students} student${course.students === 1 ? "" : "s"}`)))));
  $("no-courses").classList.toggle("hidden", shown.length > 0);
}

async function chooseCourse(id) {
  const course = await api(`${ATT}/courses/${encodeURIComponent(id)}`);
  // Another course's first passwords never stay on screen under this one.
  if (chosenCourse?.id !== course.id) $("csv-result").replaceChildren();
  chosenCourse = course;
  renderCourses();
  $("course").classList.remove("hidden");
  $("course-code").textContent = `${course.code} · ${course.academicYear}`;
  $("course-title").textContent = course.title;
  $("course-professors").replaceChildren(...(course.professors.length ? course.professors.map((p) => h("li", {},
    h("span", { class: "att-person-name" }, p.displayName), h("span", { class: "att-person-meta" }, p.faces ? `${p.faces} faces` : "no face enrolled")))
    : [h("li", { class: "muted" }, "No professor yet.")]));
  const students = await api(`${ATT}/courses/${encodeURIComponent(id)}/students`);
  $("student-count").textContent = `(${students.length})`;
  $("course-students").replaceChildren(...students.map((p) => h("li", { dataset: { student: p.id } },
    h("span", { class: "att-person-name" }, p.displayName), h("span", { class: "att-person-meta" }, p.faces ? `${p.faces} faces` : "no face"))));
}

$("new-course").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const course = await api(`${ATT}/courses`, { method: "POST", json: { code: $("c-code").value.trim(), title: $("c-title").value.trim(), academicYear: $("c-year").value.trim() } });
    status($("status"), `Created ${course.code} (${course.academicYear}).`, "ok");
    event.target.reset();
    $("c-year").value = course.academicYear;
    $("year").value = course.academicYear;
    await loadCourses();
    $("year").value = course.academicYear;
    renderCourses();
    await chooseCourse(course.id);
  } catch (error) {
    status($("status"), error.message, "bad");
  }
});
$("year").addEventListener("change", () => { chosenCourse = null; $("csv-result").replaceChildren(); $("course").classList.add("hidden"); renderCourses(); });

async function member(kind, select) {
  if (!select.value) return;
  try {
    await api(`${ATT}/courses/${encodeURIComponent(chosenCourse.id)}/${kind}`, { method: "POST", json: { user: select.value } });
    status($("status"), `${select.selectedOptions[0].textContent} ${kind === "professors" ? "assigned" : "enrolled"}.`, "ok");
    await loadCourses();
    await chooseCourse(chosenCourse.id);
  } catch (error) {
    status($("status"), error.message, "bad");
  }
}
$("assign-form").addEventListener("submit", (event) => { event.preventDefault(); member("professors", $("assign")); });
$("enrol-form").addEventListener("submit", (event) => { event.preventDefault(); member("students", $("enrol-student")); });

$("csv-file").addEventListener("change", async () => {
  const file = $("csv-file").files[0];
  if (file) $("csv-text").value = await file.text();
});
$("csv-go").addEventListener("click", async () => {
  const text = $("csv-text").value.trim();
  if (!text) { status($("status"), "Paste the CSV or choose a file first.", "warn"); return; }
  const box = $("csv-result");
  $("csv-go").disabled = true;
  try {
    // The import runs on the server as a job (a first password takes a quarter second to
    // hash): its progress is polled and shown until it ends.
    let job = await api(`${ATT}/courses/${encodeURIComponent(chosenCourse.id)}/students.csv`, { method: "POST", body: text + "\n", type: "text/csv" });
    const progress = h("progress", { max: "1", value: "0", "aria-label": "Import progress" });
    const line = h("p", { class: "status", role: "status" }, "Queued…");
    box.replaceChildren(line, progress);
    while (job.state !== "done" && job.state !== "failed") {
      await new Promise((resolve) => setTimeout(resolve, 500));
      job = await api(`${ATT}/imports/${encodeURIComponent(job.id)}`);
      if (job.state === "hashing") {
        line.textContent = `Making accounts: ${job.done} of ${job.total} first passwords…`;
        progress.max = String(Math.max(1, job.total));
        progress.value = String(job.done);
      } else if (job.state === "saving") line.textContent = `Saving ${job.rows} students…`;
    }
    if (job.state === "failed") throw new Error(`Nothing was imported: ${job.error}`);
    const result = job.result;
    await Promise.all([loadPeople(), loadCourses()]);
    await chooseCourse(chosenCourse.id);
    box.replaceChildren(h("p", { class: "status ok" }, `${result.enrolled} enrolled; ${result.created.length} new account${result.created.length === 1 ? "" : "s"}.`));
    if (result.created.length) {
      box.append(h("p", { class: "note" }, h("strong", {}, "First passwords, shown only now: "), "hand them out or copy them before leaving this page."),
        h("div", { class: "table-wrap" }, h("table", { class: "iv-table att-table reflow att-passwords", id: "created" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "User name"), h("th", { scope: "col" }, "Name"), h("th", { scope: "col" }, "First password"))),
          h("tbody", {}, result.created.map((c) => h("tr", {}, h("td", { "data-label": "User name" }, c.username), h("td", { "data-label": "Name" }, c.displayName),
            h("td", { "data-label": "First password" }, h("code", {}, c.password))))))),
        h("p", { class: "muted small" }, "Each person changes this password at their first sign-in."));
    }
    $("csv-text").value = "";
  } catch (error) {
    box.replaceChildren();
    status($("status"), error.message, "bad");
  } finally {
    $("csv-go").disabled = false;
  }
});

// Hand-over

$("handover").addEventListener("submit", async (event) => {
  event.preventDefault();
  const target = people.find((p) => p.id === $("h-user").value);
  if (!target || !confirm(`Make ${target.displayName} the administrator? You become ${$("h-role").selectedOptions[0].textContent.toLowerCase()}.`)) return;
  $("h-go").disabled = true;
  const box = proofBox("Your face, to hand over");
  $("handover-face").replaceChildren(box);
  try {
    const { proof } = await faceProof(box);
    await api(`${ATT}/admin-handover`, { method: "POST", json: { user: target.id, password: $("h-password").value, proof, newRole: $("h-role").value } });
    status($("handover-status"), `${target.displayName} is the administrator now. Sign in again to continue in your new role.`, "ok");
    // Nothing here is yours to change any more.
    for (const control of $("work").querySelectorAll("button, input, select, textarea")) control.disabled = true;
    $("handover-face").append(h("a", { class: "button primary", href: "/attendance/" }, "Continue"));
    $("h-password").value = "";
    return;
  } catch (error) {
    status($("handover-status"), error.message, "bad");
  }
  $("h-password").value = "";
  $("h-go").disabled = false;
});

// The sub-navigation marks the section in view.
for (const link of document.querySelectorAll(".subnav a")) {
  link.addEventListener("click", () => {
    for (const other of document.querySelectorAll(".subnav a")) other.removeAttribute("aria-current");
    link.setAttribute("aria-current", "page");
  });
}

async function main() {
  me = await requireRole(["admin"], location.pathname);
  if (!me) return;
  $("work").classList.remove("hidden");
  $("c-year").value = academicYear();
  try {
    await Promise.all([loadPeople(), loadCourses()]);
  } catch (error) {
    status($("status"), error.message, "bad");
  }
}
main();
