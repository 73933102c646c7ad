// The Puzzler's HTTP API (docs/puzzler-api.md), through the shared `api()` helper (CSRF token
// when signed in, the server's reason in the error). Guests get their cookie from the first
// GET /progress, so every page loads the progress before anything unsafe.
import { api, APIError } from "/js/account.js";

export { APIError };
const BASE = "/api/v1/puzzler";

/** The catalogue: `{levels: [...]}` with a `byId` Map added. */
export async function catalogue() {
  const body = await api(`${BASE}/levels`);
  const levels = Array.isArray(body?.levels) ? body.levels : [];
  return { levels, byId: new Map(levels.map((level) => [level.id, level])) };
}

/** The player's progress: `{player, points, meteors, levels}` with a `byId` Map added. */
export async function progress() {
  const body = await api(`${BASE}/progress`);
  const levels = Array.isArray(body?.levels) ? body.levels : [];
  return { ...body, levels, byId: new Map(levels.map((level) => [level.id, level])) };
}

/** Buys the next hint tier: `{tier, text, points}`; an APIError (409) says why not. */
export const buyHint = (level) => api(`${BASE}/levels/${encodeURIComponent(level)}/hints`, { method: "POST", json: {} });

/** Buys the next hint of `level` and writes it into `progress` (as `progress()` answered it,
 *  with `byId`): the hint joins the level's, one fewer is left, the points drop. */
export async function buyHintInto(progress, level) {
  const bought = await buyHint(level);
  const mine = progress.byId.get(level);
  if (mine) { mine.hints = [...(mine.hints || []), bought.text]; mine.hintsLeft = Math.max(0, (mine.hintsLeft ?? 3) - 1); }
  progress.points = bought.points;
  return bought;
}

/** Makes this device the guest player with `code`. */
export const resume = (code) => api(`${BASE}/resume`, { method: "POST", json: { code } });

/** Starts a meteor round: `{round, seed, spawnSeconds}`. */
export const startMeteors = () => api(`${BASE}/meteors`, { method: "POST", json: {} });

/** Credits a round's catches: `{credited, points}`. */
export const finishMeteors = (round, caught) => api(`${BASE}/meteors/${encodeURIComponent(round)}`, { method: "POST", json: { caught } });

/** Opens a pairing room for a level: `{code, url, qr}`. */
export const pair = (level) => api(`${BASE}/pair`, { method: "POST", json: { level } });

/** Reports the offline level's events recorded while offline; answers the level reply. */
export const offlineEvents = (events) => api(`${BASE}/levels/offline/events`, { method: "POST", json: { events } });

/** The level socket's path. */
export function playPath(level, { room, rate } = {}) {
  const query = new URLSearchParams();
  if (room) query.set("room", room);
  if (rate) query.set("rate", String(Math.round(rate)));
  const q = query.toString();
  return `${BASE}/levels/${encodeURIComponent(level)}/play${q ? `?${q}` : ""}`;
}

/** A sentence for a failed load, telling a missing Puzzler API (404) from the rest. */
export function loadError(error) {
  if (error instanceof APIError && error.status === 404) return "The Puzzler is not available on this server yet (its API answered 404).";
  if (error instanceof APIError && error.status === 0) return `${error.message} Check the connection and reload.`;
  return `The Puzzler could not load: ${error.message}`;
}

/** The level's browser signal as {text, alternative} whatever shape the catalogue gives it. */
export function browserSignal(level) {
  const signal = level?.browserSignal;
  if (!signal) return level?.alternative ? { text: "", alternative: level.alternative } : null;
  if (typeof signal === "string") return { text: signal, alternative: level.alternative || "" };
  return { text: signal.text || signal.signal || signal.description || "", alternative: signal.alternative || level.alternative || "" };
}

/** The five-pointed star used on the map and in the success moment (SVG path in a 100×100 box). */
export const STAR_PATH = "M50 4 L61.8 37.6 L97.6 38.2 L69.1 59.9 L79.4 94.1 L50 73.8 L20.6 94.1 L30.9 59.9 L2.4 38.2 L38.2 37.6 Z";
export function starSVG(className = "") {
  return `<svg viewBox="0 0 100 100" class="${className}" aria-hidden="true"><path d="${STAR_PATH}"/></svg>`;
}

/** What each sense plays with, in words ("with …"). */
export const SENSE_WORDS = {
  face: "your face", colour: "light and colour", objects: "things you show", hands: "your hand", drawing: "a drawing",
  sound: "your voice", motion: "moving the device", device: "the device itself", touch: "touch",
};
