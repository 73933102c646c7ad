// One saved Pokémon: its screenshots, what all its scans agree on, the latest scan's values to
// correct (PUT), the planner and PvP ranks for a chosen combination, and Delete.
import { api, session, showAccountLink, status } from "/js/account.js";
import { EntryForm, Results, LiveEvaluation, h, number, percent, range, levelsText } from "/iv/entry.js";

const $ = (id) => document.getElementById(id);
const id = new URLSearchParams(location.search).get("id");
let form = null, live = null;

const when = (ms) => new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
const imageURL = (scan) => `/api/v1/iv/scans/${encodeURIComponent(scan.id)}/image`;
const span = (ivs, key) => (ivs?.length ? range({ min: Math.min(...ivs.map((c) => c[key])), max: Math.max(...ivs.map((c) => c[key])) }) : "–");

function showFacts(p) {
  const name = p.nickname ? `${p.nickname} (${p.species})` : p.species;
  $("title").textContent = name;
  document.title = `${name} — Sentio`;
  const fact = (term, value, cls) => h("div", {}, h("dt", { text: term }), h("dd", { class: cls, text: value }));
  const levels = p.level ?? levelsText([...new Set((p.ivs || []).map((c) => c.level))]);
  $("facts").replaceChildren(
    fact("CP", number(p.cp), "fact-cp"), fact("HP", number(p.hp)), fact("Level", String(levels)),
    fact("IV", p.percent ? (p.percent.min === p.percent.max ? percent(p.percent.min) : `${percent(p.percent.min)}–${percent(p.percent.max)}`) : "–", "fact-iv"),
    fact("Attack", span(p.ivs, "attack")), fact("Defense", span(p.ivs, "defense")), fact("HP IV", span(p.ivs, "stamina")),
    fact("Combinations", String(p.ivs?.length ?? 0)), fact("Scans", String(p.scans ?? 1)),
    fact("Kind", [p.form && p.form !== "Normal" ? p.form : null, p.lucky ? "Lucky" : null, p.shadow ? "Shadow" : null, p.purified ? "Purified" : null]
      .filter(Boolean).join(", ") || "Normal"));
}

function showScans(scans) {
  $("scans").replaceChildren(...scans.map((scan, i) => {
    const e = scan.entry || {};
    const parts = [h("p", {}, h("strong", { text: i === 0 ? "Latest scan" : `Scan ${scans.length - i}` }), ` · ${when(scan.scannedAt)}`,
      scan.firstScannedAt && scan.firstScannedAt !== scan.scannedAt ? h("span", { class: "muted", text: ` (first ${when(scan.firstScannedAt)})` }) : "")];
    parts.push(h("p", { class: "muted", text: `CP ${number(e.cp)} · HP ${number(e.hp)} · stardust ${number(e.stardust)}` +
      (e.level ? ` · level ${e.level}` : "") + (e.trainerLevel ? ` · trainer level ${e.trainerLevel}` : "") }));
    const figure = scan.hasImage
      ? h("a", { href: imageURL(scan), target: "_blank", rel: "noopener", class: "iv-shot" },
        h("img", { src: imageURL(scan), alt: `Screenshot of scan ${scans.length - i}`, loading: "lazy" }))
      : h("div", { class: "iv-shot none", text: "Typed in (no screenshot)" });
    return h("li", { class: "iv-scan" }, figure, h("div", {}, ...parts));
  }));
}

async function loadImage(scan) {
  if (!scan?.hasImage) return null;
  const image = new Image();
  image.src = imageURL(scan);
  try { await image.decode(); return image; } catch { return null; }
}

async function load() {
  if (!id) { status($("status"), "No Pokémon named: open one from your collection.", "bad"); return; }
  const current = await session();
  if (!current) {
    status($("status"), "");
    $("sign-in-link").href = `/account/?next=${encodeURIComponent(location.pathname + location.search)}`;
    $("signed-out").classList.remove("hidden");
    return;
  }
  let detail;
  try {
    detail = await api(`/api/v1/iv/collection/${encodeURIComponent(id)}`);
  } catch (error) {
    status($("status"), error.status === 404 ? "This Pokémon is not in your collection (deleted?)." : error.message, "bad");
    return;
  }
  const { pokemon, scans } = detail;
  showFacts(pokemon);
  showScans(scans);
  const latest = scans[0];
  const image = await loadImage(latest);
  const results = new Results();
  form = new EntryForm({ entry: latest?.entry || { species: pokemon.species, hp: pokemon.hp, cp: pokemon.cp }, fields: latest?.fields,
    image, context: true, nickname: pokemon.nickname ?? null, onChange: () => live.schedule() });
  live = new LiveEvaluation(form, results, $("evaluation-status"));
  if (pokemon.ivs?.length === 1) live.chosen = pokemon.ivs[0];
  $("form").replaceChildren(form.element);
  $("results").replaceChildren(results.element);
  $("detail").classList.remove("hidden");
  status($("status"), "");
  live.run();
}

$("save").addEventListener("click", async () => {
  $("save").disabled = true;
  status($("save-status"), "Saving…");
  try {
    const pokemon = await api(`/api/v1/iv/collection/${encodeURIComponent(id)}`, { method: "PUT", json: { entry: form.entry, nickname: form.nickname } });
    showFacts(pokemon);
    const detail = await api(`/api/v1/iv/collection/${encodeURIComponent(id)}`);
    showScans(detail.scans);
    status($("save-status"), "Saved.", "ok");
  } catch (error) {
    status($("save-status"), `Not saved: ${error.message}`, "bad");
  } finally {
    $("save").disabled = false;
  }
});

$("delete").addEventListener("click", async () => {
  if (!confirm(`Delete ${$("title").textContent} and its scans? This cannot be undone.`)) return;
  $("delete").disabled = true;
  try {
    await api(`/api/v1/iv/collection/${encodeURIComponent(id)}`, { method: "DELETE" });
    location.assign("/iv/collection.html");
  } catch (error) {
    status($("save-status"), `Not deleted: ${error.message}`, "bad");
    $("delete").disabled = false;
  }
});

showAccountLink();
load();
