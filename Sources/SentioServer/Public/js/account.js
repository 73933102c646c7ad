// The signed-in session and a fetch helper that sends the CSRF token.
// Every page loads the session once (GET /api/v1/session: 401 when signed out); signed-in
// POST/PUT/DELETE requests carry its token in X-CSRF-Token, as the server requires.
// A guest's page does not ask: the server sets the readable cookie sentio_signed_in beside the
// session's own (HttpOnly) one, and without it there is no session to load — and no 401 in
// the browser's console on every page a guest opens.

let sessionPromise = null;

const HINT = "sentio_signed_in";
function signedInHere() { return document.cookie.split("; ").some((c) => c.startsWith(`${HINT}=1`)); }

/** The session ({user, csrfToken}) or null when signed out; loaded once per page. */
export function session({ reload = false } = {}) {
  if (!sessionPromise || reload) {
    sessionPromise = !signedInHere() ? Promise.resolve(null) : fetch("/api/v1/session", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(async (response) => {
        if (response.ok) return response.json();
        // The session ended elsewhere (signed out, expired, password changed): forget the hint.
        if (response.status === 401) document.cookie = `${HINT}=; Max-Age=0; Path=/; SameSite=Strict`;
        return null;
      })
      .catch(() => null)
      .then((current) => {
        // A password someone else chose must be replaced before anything else (the server
        // refuses the rest): every page sends such a user to the account page, and back after.
        if (current?.user?.mustChangePassword && location.pathname !== "/account/") {
          location.assign(`/account/?next=${encodeURIComponent(location.pathname + location.search)}`);
        }
        return current;
      });
  }
  return sessionPromise;
}

/** An Error carrying the HTTP status and the server's message ({"error": {"message"}}). */
export class APIError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** The server's reason for a failed response, in words. */
export async function errorMessage(response) {
  let text = "";
  try { text = await response.text(); } catch { /* no body */ }
  try {
    const body = JSON.parse(text);
    if (body?.error?.message) return body.error.message;
    if (typeof body?.reason === "string") return body.reason;
  } catch { /* not JSON */ }
  if (response.status === 401) return "Sign in first.";
  if (response.status === 404) return "Not found.";
  if (response.status === 413) return "The file is too large.";
  if (response.status === 429) return "Too many requests: wait a moment and try again.";
  return text && text.length < 200 ? text : `The server answered ${response.status} ${response.statusText}`.trim();
}

/**
 * fetch() for the API: JSON in (`json`) or any body (`body` with `type`), the CSRF token on
 * unsafe methods when signed in, JSON (or null for 204) out, an APIError with the server's
 * message when the answer is not 2xx, and a readable one when the network fails.
 */
/** How long `api` waits out a refusal that says when to come back (issue 36, item 6): a 429 or
 *  503 with `Retry-After` of at most `MAX_WAIT` seconds is tried again after it, up to
 *  `MAX_TRIES` times in all. The server refuses such requests before doing their work (its
 *  admission by cost, its pools, its deadlines), so asking again is safe. Sign-in and password
 *  requests are never repeated: their refusals count wrong passwords, and a person decides. */
const RETRY = { MAX_WAIT: 10, MAX_TRIES: 4 };

function retryAfter(response, path, attempt) {
  if (![429, 503].includes(response.status) || attempt >= RETRY.MAX_TRIES || path.startsWith("/api/v1/session")) return null;
  const seconds = Number(response.headers.get("Retry-After"));
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= RETRY.MAX_WAIT ? seconds : null;
}

/** Calls the API; resolves to its JSON (or the response when `raw`), rejects with an APIError
 *  saying why. `onWait(seconds)` is told when a busy server asked to wait (see RETRY). */
export async function api(path, { method = "GET", json, body, type, headers = {}, raw = false, onWait = () => {} } = {}) {
  if (!path.startsWith("/api/v1/session")) {
    // A user who must choose a password first is on the way to the account page (session()
    // sends them): the server would refuse anything else, so nothing else is asked.
    const current = await session();
    if (current?.user?.mustChangePassword) return new Promise(() => {});
  }
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json", ...headers } };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers["Content-Type"] = "application/json";
  } else if (body !== undefined) {
    init.body = body;
    if (type) init.headers["Content-Type"] = type;
  }
  if (!["GET", "HEAD"].includes(method)) {
    const current = await session();
    if (current?.csrfToken) init.headers["X-CSRF-Token"] = current.csrfToken;
  }
  let response;
  for (let attempt = 1; ; attempt++) {
    try {
      response = await fetch(path, init);
    } catch {
      throw new APIError(navigator.onLine === false ? "You are offline." : "The server could not be reached.", 0);
    }
    const wait = retryAfter(response, path, attempt);
    if (wait === null) break;
    onWait(wait);
    // A little spread, so requests refused together do not all come back in the same instant.
    await new Promise((resolve) => setTimeout(resolve, wait * 1000 + Math.random() * 250));
  }
  if (!response.ok) throw new APIError(await errorMessage(response), response.status);
  if (raw) return response;
  if (response.status === 204) return null;
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

/** Signs in; resolves to the session, rejects with the server's reason. */
export async function signIn(username, password) {
  const result = await api("/api/v1/session", { method: "POST", json: { username, password } });
  sessionPromise = Promise.resolve(result);
  return result;
}

/** Signs out (the session's cookie is cleared by the server). */
export async function signOut() {
  await api("/api/v1/session", { method: "DELETE" });
  sessionPromise = Promise.resolve(null);
}

/** Shows who is signed in on the header's account link (an element with id "account-link"). */
export async function showAccountLink() {
  const link = document.getElementById("account-link");
  if (!link) return null;
  const current = await session();
  link.textContent = current ? current.user.displayName || current.user.username : "Sign in";
  link.title = current ? `Signed in as ${current.user.username}` : "Sign in";
  return current;
}

/** A same-site path to return to after signing in (never another site). */
export function safeNext(value) {
  // Judged after the browser's own normalisation, never by the text alone: a URL parser drops
  // tabs and newlines and reads "\\" as "/", so "/\t/evil.example" is "//evil.example", another
  // site (issue 34, finding 8). Only a path of this origin is kept.
  if (typeof value !== "string" || !value.startsWith("/") || /[\u0000-\u001f\u007f\\]/.test(value)) return null;
  let url;
  try { url = new URL(value, location.origin); } catch { return null; }
  if (url.origin !== location.origin || url.pathname.startsWith("//")) return null;
  return url.pathname + url.search + url.hash;
}

/** A status line: text and tone ("", ok, warn, bad) on an aria-live element. */
export function status(element, text, tone = "") {
  element.textContent = text;
  element.className = `status ${tone}`.trim();
}
