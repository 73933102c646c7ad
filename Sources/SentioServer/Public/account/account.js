// The account page: sign in (accounts are made by an administrator) or sign out.
import { session, signIn, signOut, showAccountLink, safeNext, status } from "/js/account.js";

const $ = (id) => document.getElementById(id);
const next = safeNext(new URLSearchParams(location.search).get("next"));

function show(current) {
  $("loading").classList.add("hidden");
  $("sign-in").classList.toggle("hidden", !!current);
  $("signed-in").classList.toggle("hidden", !current);
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
    if (next) { location.assign(next); return; }
    show(current);
    status($("sign-out-status"), "Signed in.", "ok");
    $("continue").focus();
  } catch (error) {
    status($("sign-in-status"), error.message, "bad");
    $("password").select();
  } finally {
    button.disabled = false;
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
