// The collection: a signed-in player's Pokémon with search, sort, filters, a by-species view,
// and CSV export/import (Poke Genie's format).
import { api, session, showAccountLink, status } from "/js/account.js";
import { h, number, percent, range, levelsText, speciesURL } from "/iv/entry.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

function query() {
  const q = new URLSearchParams();
  const search = $("search").value.trim();
  if (search) q.set("search", search);
  q.set("sort", $("sort").value);
  q.set("order", $("order").dataset.order);
  const min = $("min-percent").value.trim();
  if (min) q.set("minPercent", min);
  if ($("lucky").value) q.set("lucky", $("lucky").value);
  if ($("shadow").value) q.set("shadow", $("shadow").value);
  if (params.get("species")) q.set("species", params.get("species"));
  return q;
}

const date = (ms) => new Date(ms).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
const ivText = (p) => (p.percent ? (p.percent.min === p.percent.max ? percent(p.percent.min) : `${percent(p.percent.min)}–${percent(p.percent.max)}`) : "–");

let sequence = 0;
async function load() {
  const mine = ++sequence;
  const q = query();
  $("export").href = `/api/v1/iv/collection.csv?${q}`;
  history.replaceState(null, "", `?${new URLSearchParams([...q].filter(([k]) => k !== "sort" || q.get(k) !== "date"))}`);
  try {
    if ($("species-view").classList.contains("hidden")) {
      const list = await api(`/api/v1/iv/collection?${q}`);
      if (mine !== sequence) return;
      showList(list);
      status($("status"), `${list.length} Pokémon${q.get("search") || q.get("minPercent") || q.get("lucky") || q.get("shadow") || q.get("species") ? " match" : ""}.`);
    } else {
      const groups = await api("/api/v1/iv/collection-by-species");
      if (mine !== sequence) return;
      showSpecies(groups);
      status($("status"), `${groups.length} species.`);
    }
  } catch (error) {
    if (mine === sequence) status($("status"), error.message, "bad");
  }
}

function showList(list) {
  $("empty").classList.toggle("hidden", list.length > 0);
  $("list").classList.toggle("hidden", list.length === 0);
  $("rows").replaceChildren(...list.map((p) => {
    const url = `/iv/pokemon.html?id=${encodeURIComponent(p.id)}`;
    const name = h("a", { href: url, class: "iv-name" }, p.nickname ? `${p.nickname} (${p.species})` : p.species);
    const badges = [p.form && p.form !== "Normal" ? p.form : null, p.lucky ? "Lucky" : null, p.shadow ? "Shadow" : null,
      p.purified ? "Purified" : null].filter(Boolean).map((text) => h("span", { class: "badge", text }));
    return h("tr", { "data-id": p.id, "data-species": p.species },
      h("th", { scope: "row", "data-label": "Pokémon" }, name, ...badges),
      h("td", { "data-label": "CP", class: "iv-cp", text: number(p.cp) }),
      h("td", { "data-label": "HP", text: number(p.hp) }),
      h("td", { "data-label": "Level", text: p.level ?? levelsText([...new Set((p.ivs || []).map((c) => c.level))]) }),
      h("td", { "data-label": "IV", class: "iv-pct", text: ivText(p) }),
      h("td", { "data-label": "Scans", text: String(p.scans ?? 1) }),
      h("td", { "data-label": "Updated", text: date(p.updatedAt) }));
  }));
}

function showSpecies(groups) {
  $("by-species").replaceChildren(...groups.map((g) => {
    const filter = new URLSearchParams({ species: g.species });
    return h("li", { class: "card" },
      h("h2", {}, g.species, g.form && g.form !== "Normal" ? h("span", { class: "badge", text: g.form }) : ""),
      h("p", { text: `${g.count} Pokémon · best ${percent(g.bestPercent)}` }),
      h("div", { class: "actions" },
        h("a", { class: "button", href: `/iv/collection.html?${filter}`, text: "Show them" }),
        h("a", { class: "button", href: speciesURL(g.species, g.form), text: "Game info" })));
  }));
  if (!groups.length) $("by-species").replaceChildren(h("li", { class: "muted", text: "No Pokémon yet." }));
}

let timer = null;
const soon = () => { clearTimeout(timer); timer = setTimeout(load, 250); };
$("filters").addEventListener("input", soon);
$("filters").addEventListener("change", soon);
$("filters").addEventListener("submit", (event) => { event.preventDefault(); load(); });
$("order").addEventListener("click", () => {
  const asc = $("order").dataset.order === "desc";
  $("order").dataset.order = asc ? "asc" : "desc";
  $("order").textContent = asc ? "Ascending ↑" : "Descending ↓";
  load();
});
for (const radio of document.querySelectorAll("input[name=view]")) {
  radio.addEventListener("change", () => {
    const species = radio.value === "species" && radio.checked;
    $("species-view").classList.toggle("hidden", !species);
    $("list-view").classList.toggle("hidden", species);
    $("filters").classList.toggle("hidden", species);
    load();
  });
}
$("import-button").addEventListener("click", () => $("import").click());
$("import").addEventListener("change", async () => {
  const file = $("import").files[0];
  $("import").value = "";
  if (!file) return;
  status($("status"), `Importing ${file.name}…`);
  try {
    const answer = await api("/api/v1/iv/collection.csv", { method: "POST", body: await file.text(), type: "text/csv" });
    await load();
    status($("status"), `Imported ${answer.imported} Pokémon from ${file.name}.`, "ok");
  } catch (error) {
    status($("status"), `Not imported: ${error.message}`, "bad");
  }
});

if (params.get("species")) {
  $("species-filter").classList.remove("hidden");
  $("species-filter").append(h("strong", { text: `Only ${params.get("species")}.` }), " ", h("a", { href: "/iv/collection.html", text: "Show every species" }));
}

// The query in the address (a link from the by-species view, or a reload) fills the controls.
$("search").value = params.get("search") ?? "";
if (params.get("sort")) $("sort").value = params.get("sort");
if (params.get("order") === "asc") { $("order").dataset.order = "asc"; $("order").textContent = "Ascending ↑"; }
$("min-percent").value = params.get("minPercent") ?? "";
$("lucky").value = params.get("lucky") ?? "";
$("shadow").value = params.get("shadow") ?? "";

session().then((current) => {
  $("loading").classList.add("hidden");
  $("signed-out").classList.toggle("hidden", !!current);
  $("collection").classList.toggle("hidden", !current);
  if (current) load();
});
showAccountLink();
