// Game info for one species: base stats, family and evolutions (with candy), max CP and
// power-up costs per level, the rank-1 IVs of each league and the dated base stats.
import { api, showAccountLink, status } from "/js/account.js";
import { h, number, speciesURL, speciesList, LEAGUES } from "/iv/entry.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const name = params.get("name"), formName = params.get("form");

const cell = (text) => h("td", { text });
const link = (s) => h("a", { href: speciesURL(s.name, s.form), text: s.form && s.form !== "Normal" ? `${s.name} (${s.form})` : s.name });

async function fillForms(selected) {
  const typed = $("name").value.trim().toLowerCase();
  let forms = [];
  try { forms = [...new Set((await speciesList()).filter((s) => s.name.toLowerCase() === typed).map((s) => s.form).filter(Boolean))]; } catch { /* none */ }
  $("form").replaceChildren(...(forms.length ? forms : ["Normal"]).map((f) => h("option", { value: f, text: f })));
  if (selected && forms.includes(selected)) $("form").value = selected;
  else if (forms.includes("Normal")) $("form").value = "Normal";
}

function show(info) {
  const s = info.species;
  const title = s.form && s.form !== "Normal" ? `#${s.dex} ${s.name} (${s.form})` : `#${s.dex} ${s.name}`;
  $("title").textContent = title;
  document.title = `${s.name} — Sentio`;
  const fact = (t, v) => h("div", {}, h("dt", { text: t }), h("dd", { text: v }));
  $("base").replaceChildren(fact("Attack", String(s.attack)), fact("Defense", String(s.defense)), fact("Stamina", String(s.stamina)),
    fact("Max CP (50)", number(info.levels?.find((l) => l.level === 50)?.maxCP ?? info.levels?.[info.levels.length - 1]?.maxCP)));

  const family = [];
  if (info.family) family.push(h("p", {}, "Family: ", h("strong", { text: String(info.family) })));
  if (info.evolvesFrom?.length) family.push(h("p", {}, "Evolves from ", ...info.evolvesFrom.flatMap((e, i) => [i ? ", " : "", link(e.species || e)])));
  if (info.evolutions?.length) {
    family.push(h("p", { class: "muted small", text: "Evolutions (candy to evolve into each):" }));
    family.push(h("ul", { class: "iv-evolutions" }, info.evolutions.map((e) => h("li", {}, link(e.species),
      e.candy ? ` — ${number(e.candy)} candy` : ""))));
  } else {
    family.push(h("p", { class: "muted", text: "Does not evolve further." }));
  }
  $("family").replaceChildren(...family);

  $("leagues").tBodies[0].replaceChildren(...(info.leagues || []).map((l) => h("tr", {},
    cell(LEAGUES[l.league] || l.league), cell(`${l.attack}/${l.defense}/${l.stamina}`), cell(String(l.level)), cell(number(l.cp)))));
  $("levels").tBodies[0].replaceChildren(...(info.levels || []).map((l) => h("tr", {},
    cell(String(l.level)), cell(number(l.maxCP)), cell(number(l.cp10)), cell(number(l.stardust)), cell(number(l.candy)), cell(number(l.xlCandy)))));
  const history = info.history || [];
  $("history").tBodies[0].replaceChildren(...history.map((r) => h("tr", {},
    cell(r.until ?? "today"), cell(String(r.attack)), cell(String(r.defense)), cell(String(r.stamina)))));
  if (!history.length) $("history").tBodies[0].replaceChildren(h("tr", {}, h("td", { colspan: "4", text: "The stats have not changed." })));
  $("info").classList.remove("hidden");
}

async function load() {
  if (!name) { status($("status"), "Type a species to see its game info."); $("name").focus(); return; }
  status($("status"), "Loading…");
  try {
    const query = formName ? `?${new URLSearchParams({ form: formName })}` : "";
    show(await api(`/api/v1/iv/species/${encodeURIComponent(name)}${query}`));
    status($("status"), "");
  } catch (error) {
    status($("status"), error.status === 404 ? `No species called “${name}”${formName ? ` with the form ${formName}` : ""}.` : error.message, "bad");
  }
}

$("name").value = name ?? "";
$("name").addEventListener("change", () => fillForms(null));
$("lookup").addEventListener("submit", (event) => {
  event.preventDefault();
  const query = new URLSearchParams({ name: $("name").value.trim() });
  if ($("form").value && $("form").value !== "Normal") query.set("form", $("form").value);
  location.assign(`/iv/species.html?${query}`);
});
speciesList().then((all) => {
  const names = [...new Set(all.map((s) => s.name))].sort((a, b) => a.localeCompare(b));
  document.getElementById("iv-species-list").replaceChildren(...names.map((n) => h("option", { value: n })));
}).catch(() => {});
fillForms(formName);
showAccountLink();
load();
