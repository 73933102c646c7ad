// The account page: sign in (accounts are made by an administrator), change the password (at
// once when someone else chose it), or sign out.
import { api, session, signIn, signOut, showAccountLink, safeNext, status } from "/js/account.js";

const $ = (id) => document.getElementById(id);
const next = safeNext(new URLSearchParams(location.search).get("next"));

function show(current) {
  $("loading").classList.add("hidden");
  $("sign-in").classList.toggle("hidden", !!current);
  $("signed-in").classList.toggle("hidden", !current || current.user.mustChangePassword);
  $("change-password").classList.toggle("hidden", !current);
  $("must-change").classList.toggle("hidden", !current?.user.mustChangePassword);
  if (current) {
    $("who").textContent = current.user.displayName && current.user.displayName !== current.user.username
      ? `${current.user.displayName} (${current.user.username})` : current.user.username;
    $("role").textContent = current.user.role;
    if (next) { $("continue").href = next; $("continue").textContent = "Continue"; }
  }
  showAccountLink();
}

$("sign-in").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = $("sign-in-button");
  button.disabled = true;
  status($("sign-in-status"), "Signing in…");
  try {
    const current = await signIn($("username").value.trim(), $("password").value);
    $("password").value = "";
    status($("sign-in-status"), "");
    if (next && !current.user.mustChangePassword) { location.assign(next); return; }
    show(current);
    status($("sign-out-status"), "Signed in.", "ok");
    (current.user.mustChangePassword ? $("current-password") : $("continue")).focus();
  } catch (error) {
    status($("sign-in-status"), error.message, "bad");
    $("password").select();
  } finally {
    button.disabled = false;
  }
});

$("change-password").addEventListener("submit", async (event) => {
  event.preventDefault();
  const fresh = $("new-password").value;
  if (fresh !== $("repeat-password").value) { status($("change-status"), "The two new passwords differ.", "bad"); return; }
  $("change-button").disabled = true;
  status($("change-status"), "Changing…");
  try {
    const current = await api("/api/v1/session/password", { method: "PUT", json: { currentPassword: $("current-password").value, newPassword: fresh } });
    for (const id of ["current-password", "new-password", "repeat-password"]) $(id).value = "";
    await session({ reload: true });
    if (next) { location.assign(next); return; }
    show(current);
    status($("change-status"), "Your password is changed; your other sessions were signed out.", "ok");
  } catch (error) {
    status($("change-status"), error.message, "bad");
  } finally {
    $("change-button").disabled = false;
  }
});

$("sign-out").addEventListener("click", async () => {
  $("sign-out").disabled = true;
  try {
    await signOut();
    show(null);
    status($("sign-in-status"), "Signed out.", "ok");
    $("username").focus();
  } catch (error) {
    status($("sign-out-status"), error.message, "bad");
  } finally {
    $("sign-out").disabled = false;
  }
});

session().then(show);
