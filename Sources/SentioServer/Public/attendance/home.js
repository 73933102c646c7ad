// The attendance landing page: sign in, then each role goes to its view.
import { session, signIn, signOut, showAccountLink, safeNext, status } from "/js/account.js";
import { $, h } from "/attendance/common.js";

const VIEWS = {
  admin: { href: "/attendance/admin.html", title: "Administration", icon: "⚙",
           text: "People and their enrolled faces, courses by year, professors, enrolments, CSV import, hand-over." },
  professor: { href: "/attendance/professor.html", title: "My courses", icon: "▤",
               text: "Lectures by date, open a lecture, the kiosk, the live roll, confirm with your face, export." },
  student: { href: "/attendance/student.html", title: "My attendance", icon: "✓",
             text: "Your attendance per course with percentages, and check-in from your phone with the room's code." },
};
const ROLE_WORDS = { admin: "Administrator", professor: "Professor", student: "Student", player: "Player" };
const next = safeNext(new URLSearchParams(location.search).get("next"));

function show(current) {
  $("loading").classList.add("hidden");
  $("sign-in").classList.toggle("hidden", !!current);
  $("signed-in").classList.toggle("hidden", !current);
  showAccountLink();
  if (!current) return;
  const { user } = current;
  $("who").textContent = user.displayName || user.username;
  $("role-line").textContent = `${ROLE_WORDS[user.role] ?? user.role} · ${user.username}`;
  const mine = VIEWS[user.role];
  $("continue").classList.toggle("hidden", !mine);
  if (mine) { $("continue").href = mine.href; $("continue").textContent = `Open ${mine.title.toLowerCase()}`; }
  // The administrator may also run any course's lectures; others see only their own view.
  const shown = user.role === "admin" ? ["admin", "professor"] : [];
  $("views").replaceChildren(...shown.map((role) => {
    const view = VIEWS[role];
    return h("li", { class: `card${role === user.role ? " featured" : ""}` },
      h("h2", {}, h("span", { class: "icon", "aria-hidden": "true" }, view.icon), " ", view.title),
      h("p", {}, view.text),
      h("a", { class: `button go${role === user.role ? " primary" : ""}`, href: view.href }, `Open ${view.title.toLowerCase()}`));
  }));
  if (!mine) $("views").append(h("li", { class: "card" }, h("h2", {}, "Nothing here for your role"),
    h("p", {}, "Attendance is for administrators, professors and students.")));
}

$("sign-in").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = $("sign-in-button");
  button.disabled = true;
  status($("sign-in-status"), "Signing in…");
  try {
    const current = await signIn($("username").value.trim(), $("password").value);
    $("password").value = "";
    const target = next ?? VIEWS[current.user.role]?.href;
    if (target) { status($("sign-in-status"), "Signed in: opening your view…", "ok"); location.assign(target); return; }
    show(current);
  } catch (error) {
    status($("sign-in-status"), error.message, "bad");
    $("password").select();
  } finally {
    button.disabled = false;
  }
});

$("sign-out").addEventListener("click", async () => {
  try { await signOut(); } catch { /* already signed out */ }
  show(null);
  status($("sign-in-status"), "Signed out.", "ok");
});

session().then(show);
