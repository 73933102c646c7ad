// The IV scanner's shared parts: the entry form (what the player read or typed, with the
// screenshot's crop beside each read field), the results (levels, IV ranges, every
// combination, the power-up planner and PvP ranks) and the live evaluation that recomputes
// them whenever a field changes. Everything from the server or the player is put on the page
// with textContent, never as HTML.
import { api } from "/js/account.js";

/** An element with attributes, properties and children (strings become text nodes). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = value;
    else if (key.startsWith("on") && typeof value === "function") element.addEventListener(key.slice(2), value);
    else if (key in element && typeof value !== "string") element[key] = value;
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

export const OBTAINED = [
  ["wild", "Wild"], ["weather", "Weather boosted"], ["hatched", "Hatched"], ["raid", "Raid"],
  ["research", "Research"], ["trade", "Trade"], ["lucky-trade", "Lucky trade"], ["purified", "Purified"],
];
export const LEAGUES = { little: "Little (500)", great: "Great (1500)", ultra: "Ultra (2500)", master: "Master" };
const STAT_NAMES = { attack: "Attack", defense: "Defense", stamina: "HP" };
/** The 2019 appraisal's bands with a leader's sentence for each (as remembered: each team leader words them differently, the bands are the same). */
const OVERALL = [
  [1, "82–100%: “…is a wonder!”"], [2, "67–80%: “…has certainly caught my attention.”"],
  [3, "51–64%: “…is above average.”"], [4, "0–49%: “…not likely to make much headway in battle.”"],
];
const BEST = [
  [1, "15: “Its stats exceed my calculations.”"], [2, "13–14: “I am certainly impressed by its stats.”"],
  [3, "8–12: “Its stats are noticeably trending to the positive.”"], [4, "0–7: “Its stats are not out of the norm.”"],
];

export const number = (value) => (value === null || value === undefined ? "–" : Number(value).toLocaleString("en"));
export const level = (value) => (value === null || value === undefined ? "–" : String(value));
export const range = (r, suffix = "") => (!r ? "–" : r.min === r.max ? `${r.min}${suffix}` : `${r.min}–${r.max}${suffix}`);
export const percent = (value) => (value === null || value === undefined ? "–" : `${Number(value).toFixed(1).replace(/\.0$/, "")}%`);
export function levelsText(levels) {
  if (!levels?.length) return "–";
  if (levels.length === 1) return String(levels[0]);
  const sorted = [...levels].sort((a, b) => a - b);
  const contiguous = sorted.every((value, i) => i === 0 || value - sorted[i - 1] === 0.5);
  return contiguous ? `${sorted[0]}–${sorted[sorted.length - 1]}` : sorted.join(", ");
}
export function speciesURL(name, form) {
  const query = new URLSearchParams({ name });
  if (form) query.set("form", form);
  return `/iv/species.html?${query}`;
}
/** Stars from the sum of the appraisal bars (45 → 4, ≥37 → 3, ≥30 → 2, ≥23 → 1). */
export function starsFromTotal(total) {
  return total >= 45 ? 4 : total >= 37 ? 3 : total >= 30 ? 2 : total >= 23 ? 1 : 0;
}

let speciesPromise = null;
/** The game's species and forms ([{dex, name, form}]), loaded once. */
export function speciesList() {
  if (!speciesPromise) speciesPromise = api("/api/v1/iv/species").catch((error) => { speciesPromise = null; throw error; });
  return speciesPromise;
}

/** The page's one <datalist> of species names (for every species input). */
function speciesDatalist() {
  let list = document.getElementById("iv-species-list");
  if (!list) {
    list = h("datalist", { id: "iv-species-list" });
    document.body.append(list);
    speciesList().then((all) => {
      const names = [...new Set(all.map((s) => s.name))].sort((a, b) => a.localeCompare(b));
      list.replaceChildren(...names.map((name) => h("option", { value: name })));
    }).catch(() => { /* the input still takes typed names */ });
  }
  return list.id;
}

/** The IVEntry a scan report gives (null fields stay null for the player to type). */
export function entryFromScan(report, { trainerLevel = null, statsAsOf = null } = {}) {
  let appraisal = null;
  const bars = report.appraisal;
  if (bars && [bars.attack, bars.defense, bars.stamina].every(Number.isInteger)) {
    appraisal = { kind: "stars", stars: starsFromTotal(bars.attack + bars.defense + bars.stamina), bars: [bars.attack, bars.defense, bars.stamina] };
  }
  return {
    species: report.species ?? null, form: report.form ?? null, cp: report.cp ?? null, hp: report.hpMax ?? null,
    stardust: report.stardustCost ?? null, level: report.level ?? null, trainerLevel, lucky: !!report.lucky,
    shadow: false, purified: false, obtained: "wild", appraisal, statsAsOf,
  };
}

/** What a scan could not read, in words (species and HP are needed to compute anything). */
export function unreadFields(report) {
  const names = [];
  if (!report.species) names.push("species");
  if (report.cp === null || report.cp === undefined) names.push("CP");
  if (report.hpMax === null || report.hpMax === undefined) names.push("HP");
  if (report.stardustCost === null || report.stardustCost === undefined) names.push("stardust");
  return names;
}

/** A canvas showing a field's box cut from the screenshot (a little margin around it). */
export function cropCanvas(image, box, label) {
  const [x, y, w, hgt] = box;
  const margin = Math.round(Math.max(4, hgt * 0.15));
  const sx = Math.max(0, x - margin), sy = Math.max(0, y - margin);
  const sw = Math.min(image.naturalWidth - sx, w + 2 * margin), sh = Math.min(image.naturalHeight - sy, hgt + 2 * margin);
  const canvas = h("canvas", { class: "crop", role: "img", "aria-label": label });
  if (sw <= 0 || sh <= 0) return canvas;
  canvas.width = sw; canvas.height = sh;
  canvas.getContext("2d").drawImage(image, sx, sy, sw, sh, 0, 0, sw, sh);
  return canvas;
}

let formCount = 0;

/**
 * The entry form: species (with the game's names), form, CP, HP, stardust, level,
 * lucky/shadow/purified, how it was obtained and the appraisal; each field read from a
 * screenshot shows its crop and what was read. `onChange` runs on every edit.
 */
export class EntryForm {
  /**
   * @param {{entry?: object, fields?: object, image?: HTMLImageElement, onChange?: Function,
   *          context?: boolean, nickname?: string|null, contextValues?: () => object}} options
   *   context: show trainer level and screenshot date in the form (else contextValues() gives them).
   */
  constructor({ entry = {}, fields = null, image = null, onChange = () => {}, context = false, nickname, contextValues = () => ({}) } = {}) {
    this.id = `e${++formCount}`;
    this.onChange = onChange;
    this.contextValues = contextValues;
    this.hasContext = context;
    this.fields = fields || {};
    this.image = image;
    this.inputs = {};
    this.element = h("div", { class: "iv-entry" });
    const grid = h("div", { class: "iv-grid" });
    const id = (name) => `${this.id}-${name}`;

    if (nickname !== undefined) {
      this.inputs.nickname = h("input", { id: id("nickname"), maxlength: "60", value: nickname ?? "", autocomplete: "off" });
      grid.append(this.field("nickname", "Nickname", this.inputs.nickname));
    }
    this.inputs.species = h("input", { id: id("species"), list: speciesDatalist(), autocomplete: "off", autocapitalize: "words",
      spellcheck: "false", value: entry.species ?? "", required: true });
    grid.append(this.field("species", "Species", this.inputs.species, "name"));
    this.inputs.form = h("select", { id: id("form") });
    this.setForms(entry.form ?? null);
    grid.append(this.field("form", "Form", this.inputs.form));
    const numeric = (name, value, attributes) => (this.inputs[name] = h("input", { id: id(name), type: "number", inputmode: "numeric",
      value: value ?? "", ...attributes }));
    grid.append(this.field("cp", "CP", numeric("cp", entry.cp, { min: "10", max: "10000", step: "1" }), "cp"));
    grid.append(this.field("hp", "HP (maximum)", numeric("hp", entry.hp, { min: "1", max: "1000", step: "1", required: true }), "hp"));
    grid.append(this.field("stardust", "Stardust cost", numeric("stardust", entry.stardust, { min: "0", max: "20000", step: "100" }), "stardust"));
    grid.append(this.field("level", "Level (if known)", numeric("level", entry.level, { min: "1", max: "55", step: "0.5", inputmode: "decimal" })));
    this.inputs.obtained = h("select", { id: id("obtained") }, OBTAINED.map(([value, text]) => h("option", { value, text })));
    this.inputs.obtained.value = entry.obtained ?? "wild";
    grid.append(this.field("obtained", "Obtained", this.inputs.obtained));
    if (context) {
      grid.append(this.field("trainerLevel", "Trainer level", numeric("trainerLevel", entry.trainerLevel, { min: "1", max: "80", step: "1" })));
      this.inputs.statsAsOf = h("input", { id: id("statsAsOf"), type: "date", value: entry.statsAsOf ?? "" });
      grid.append(this.field("statsAsOf", "Screenshot taken on", this.inputs.statsAsOf));
    }
    this.element.append(grid);

    const checks = h("div", { class: "iv-checks", role: "group", "aria-label": "Kind" });
    for (const [name, text] of [["lucky", "Lucky"], ["shadow", "Shadow"], ["purified", "Purified"]]) {
      this.inputs[name] = h("input", { type: "checkbox", id: id(name), checked: !!entry[name] });
      checks.append(h("label", { class: "check", for: id(name) }, this.inputs[name], text));
    }
    this.element.append(checks);
    this.element.append(this.appraisalFieldset(entry.appraisal));
    this.element.append(this.otherReadings());

    this.element.addEventListener("input", (event) => this.changed(event));
    this.element.addEventListener("change", (event) => this.changed(event));
    this.inputs.species.addEventListener("change", () => this.setForms(null));
  }

  /** A labelled field, with the crop of the screenshot and the text read when there is one. */
  field(name, text, input, readKey = null) {
    const wrap = h("div", { class: `iv-field iv-field-${name}` }, h("label", { for: input.id, text }));
    const read = readKey ? this.fields[readKey] : null;
    if (read && this.image && Array.isArray(read.box)) {
      const crop = cropCanvas(this.image, read.box, `${text} on the screenshot`);
      wrap.append(h("div", { class: "iv-read" }, crop, input));
      wrap.append(h("small", { class: "iv-readtext" }, `Read “${read.text}”`,
        // Tesseract gives 0 where it kept no confidence for the line (a CP read right says "0 %"): said only when it has one.
        typeof read.confidence === "number" && read.confidence > 0 ? ` · ${Math.round(read.confidence > 1 ? read.confidence : read.confidence * 100)}% sure` : ""));
    } else {
      wrap.append(input);
    }
    return wrap;
  }

  /** The other fields read from the screen (candy, height…): crop and text, for checking. */
  otherReadings() {
    const used = new Set(["name", "cp", "hp", "stardust"]);
    const names = { candyName: "Candy", candyCost: "Candy to power up", evolveCandy: "Candy to evolve", height: "Height" };
    const others = Object.entries(this.fields).filter(([key, value]) => !used.has(key) && value && Array.isArray(value.box));
    if (!others.length || !this.image) return h("span", { class: "hidden" });
    return h("details", { class: "iv-other" }, h("summary", { text: `Other readings (${others.length})` }),
      h("ul", { class: "iv-other-list" }, others.map(([key, value]) => h("li", {},
        h("span", { class: "iv-other-name", text: names[key] || key }), cropCanvas(this.image, value.box, `${names[key] || key} on the screenshot`),
        h("span", { text: `“${value.text}”` })))));
  }

  appraisalFieldset(appraisal) {
    const id = (name) => `${this.id}-${name}`;
    const kind = h("select", { id: id("appraisal-kind") },
      h("option", { value: "", text: "None" }), h("option", { value: "stars", text: "Stars and bars (today)" }),
      h("option", { value: "leader", text: "Team leader’s words (2019)" }));
    kind.value = appraisal?.kind ?? "";
    this.inputs.appraisalKind = kind;

    const stars = h("select", { id: id("stars") }, [0, 1, 2, 3, 4].map((n) => h("option", { value: String(n),
      text: n === 4 ? "4 (hundo: 15/15/15)" : `${n} star${n === 1 ? "" : "s"}` })));
    stars.value = String(appraisal?.kind === "stars" ? appraisal.stars ?? 0 : 0);
    this.inputs.stars = stars;
    const bars = ["attack", "defense", "stamina"].map((stat, i) => {
      const input = h("input", { id: id(`bar-${stat}`), type: "number", inputmode: "numeric", min: "0", max: "15", step: "1",
        value: appraisal?.kind === "stars" && appraisal.bars ? appraisal.bars[i] : "" });
      this.inputs[`bar-${stat}`] = input;
      return h("div", { class: "iv-field" }, h("label", { for: input.id, text: `${STAT_NAMES[stat]} bar (0–15)` }), input);
    });
    bars.forEach((wrap) => wrap.querySelector("input").addEventListener("input", () => {
      const values = this.bars();
      if (values) stars.value = String(starsFromTotal(values[0] + values[1] + values[2]));
    }));
    const starsPanel = h("div", { class: "iv-grid iv-appraisal-stars" },
      h("div", { class: "iv-field" }, h("label", { for: stars.id, text: "Stars" }), stars), ...bars);

    const overall = h("select", { id: id("overall") }, OVERALL.map(([v, t]) => h("option", { value: String(v), text: t })));
    const best = h("select", { id: id("best") }, BEST.map(([v, t]) => h("option", { value: String(v), text: t })));
    overall.value = String(appraisal?.kind === "leader" ? appraisal.overall : 1);
    best.value = String(appraisal?.kind === "leader" ? appraisal.best : 1);
    this.inputs.overall = overall; this.inputs.best = best;
    const bestStats = h("div", { class: "iv-checks", role: "group", "aria-label": "Best stats" },
      ["attack", "defense", "stamina"].map((stat) => {
        const box = h("input", { type: "checkbox", id: id(`best-${stat}`),
          checked: appraisal?.kind === "leader" && (appraisal.bestStats || []).includes(stat) });
        this.inputs[`best-${stat}`] = box;
        return h("label", { class: "check", for: box.id }, box, STAT_NAMES[stat]);
      }));
    const leaderPanel = h("div", { class: "iv-grid iv-appraisal-leader" },
      h("div", { class: "iv-field wide" }, h("label", { for: overall.id, text: "Overall" }), overall),
      h("div", { class: "iv-field wide" }, h("label", { for: best.id, text: "Best stat" }), best),
      h("div", { class: "iv-field wide" }, h("span", { class: "iv-label", text: "Which stats are best" }), bestStats));

    const sync = () => {
      starsPanel.classList.toggle("hidden", kind.value !== "stars");
      leaderPanel.classList.toggle("hidden", kind.value !== "leader");
    };
    kind.addEventListener("change", sync);
    sync();
    return h("fieldset", { class: "iv-appraisal" }, h("legend", { text: "Appraisal" }),
      h("div", { class: "iv-field" }, h("label", { for: kind.id, text: "What the appraisal showed" }), kind), starsPanel, leaderPanel);
  }

  bars() {
    const values = ["attack", "defense", "stamina"].map((stat) => this.inputs[`bar-${stat}`].value.trim());
    if (values.some((v) => v === "")) return null;
    const numbers = values.map(Number);
    return numbers.every((n) => Number.isInteger(n) && n >= 0 && n <= 15) ? numbers : null;
  }

  /** The form select's options: the forms the game has for the typed species. */
  async setForms(selected) {
    const select = this.inputs.form;
    const name = this.inputs.species.value.trim().toLowerCase();
    let forms = [];
    try {
      forms = (await speciesList()).filter((s) => s.name.toLowerCase() === name).map((s) => s.form).filter(Boolean);
    } catch { /* no list: keep what was read */ }
    if (this.inputs.species.value.trim().toLowerCase() !== name) return; // typed on meanwhile
    forms = [...new Set(forms)];
    if (selected && !forms.includes(selected)) forms.unshift(selected);
    const previous = selected ?? select.value;
    select.replaceChildren(...(forms.length ? forms : ["Normal"]).map((f) => h("option", { value: f, text: f })));
    if (!forms.length) select.firstChild.value = "";
    if (previous && forms.includes(previous)) select.value = previous;
    else if (forms.includes("Normal")) select.value = "Normal";
  }

  changed(event) {
    if (event.type === "change" && event.target === this.inputs.species) return; // setForms then fires the change
    this.onChange(this);
  }

  /** What is missing to compute anything (species and HP). */
  missing() {
    const names = [];
    if (!this.inputs.species.value.trim()) names.push("species");
    if (!this.inputs.hp.value.trim()) names.push("HP");
    return names;
  }

  get nickname() {
    const value = this.inputs.nickname?.value.trim();
    return value ? value : null;
  }

  /** The IVEntry as typed. */
  get entry() {
    const int = (name) => { const v = this.inputs[name]?.value.trim(); return v ? Math.round(Number(v)) : null; };
    const decimal = (name) => { const v = this.inputs[name]?.value.trim(); return v ? Number(v) : null; };
    const context = this.hasContext
      ? { trainerLevel: int("trainerLevel"), statsAsOf: this.inputs.statsAsOf.value || null }
      : this.contextValues();
    let appraisal = null;
    if (this.inputs.appraisalKind.value === "stars") {
      appraisal = { kind: "stars", stars: Number(this.inputs.stars.value) };
      const bars = this.bars();
      if (bars) appraisal.bars = bars;
    } else if (this.inputs.appraisalKind.value === "leader") {
      appraisal = { kind: "leader", overall: Number(this.inputs.overall.value), best: Number(this.inputs.best.value),
        bestStats: ["attack", "defense", "stamina"].filter((stat) => this.inputs[`best-${stat}`].checked) };
    }
    return {
      species: this.inputs.species.value.trim(), form: this.inputs.form.value || null, cp: int("cp"), hp: int("hp"),
      stardust: int("stardust"), level: decimal("level"), trainerLevel: context.trainerLevel ?? null,
      lucky: this.inputs.lucky.checked, shadow: this.inputs.shadow.checked, purified: this.inputs.purified.checked,
      obtained: this.inputs.obtained.value, appraisal, statsAsOf: context.statsAsOf ?? null,
    };
  }
}

/**
 * The page's scans and evaluations, in line: at most `width` in flight, and no more than
 * `perSecond` after a `burst`, so that a batch of cards re-checked at once (a date changed for
 * 40 screenshots) stays within the server's limit on stills per address (30 at once, then 5 a
 * second by default: `Limits.stillsBurst`, `stillsPerSecond`) instead of meeting 429s (issue
 * 38). A server with tighter limits still answers 429 now and then; `api` waits out its
 * Retry-After.
 */
class Lane {
  constructor({ width, burst, perSecond }) {
    Object.assign(this, { width, burst, perSecond, running: 0, waiting: [], tokens: burst, at: performance.now() });
  }

  /** Waits for a token of the bucket (refilled at `perSecond`). */
  async token() {
    for (;;) {
      const now = performance.now();
      this.tokens = Math.min(this.burst, this.tokens + (now - this.at) / 1000 * this.perSecond);
      this.at = now;
      if (this.tokens >= 1) { this.tokens -= 1; return; }
      await new Promise((resolve) => setTimeout(resolve, (1 - this.tokens) / this.perSecond * 1000));
    }
  }

  /** Runs `task` in its turn; null without running it when `stale()` says it is no longer wanted by then. */
  async run(task, stale = () => false) {
    if (this.running >= this.width) await new Promise((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      if (stale()) return null;
      await this.token();
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next(); else this.running -= 1; // the slot passes straight to the next in line
    }
  }
}

/** The one lane of the IV pages' compute requests (scans and evaluations). */
export const computeLane = new Lane({ width: 2, burst: 20, perSecond: 4 });

const sameIV = (a, b) => a && b && a.level === b.level && a.attack === b.attack && a.defense === b.defense && a.stamina === b.stamina;

/** The results of an evaluation: summary, combinations, planner and PvP ranks. */
export class Results {
  constructor({ onChoose = () => {}, shown = 60 } = {}) {
    this.onChoose = onChoose;
    this.shown = shown;
    this.element = h("section", { class: "iv-results", "aria-label": "Results", "data-state": "empty" });
  }

  clear(message = "") {
    this.element.dataset.state = "empty";
    this.element.replaceChildren(message ? h("p", { class: "muted", text: message }) : "");
  }

  render(evaluation) {
    this.evaluation = evaluation;
    const e = evaluation;
    const parts = [];
    const species = e.species ? h("p", { class: "iv-species" },
      // Game info opens beside the results (issue 38): a scan's cards live only in this page.
      h("a", { href: speciesURL(e.species.name, e.species.form), class: "iv-species-link", target: "_blank", rel: "noopener",
        title: "Opens in a new tab", text: `#${e.species.dex} ${e.species.name}` }),
      e.species.form && e.species.form !== "Normal" ? h("span", { class: "badge", text: e.species.form }) : "",
      h("span", { class: "muted", text: ` base ${e.species.attack}/${e.species.defense}/${e.species.stamina}` })) : "";
    parts.push(species);
    if (e.problem) parts.push(h("p", { class: "status warn iv-problem", text: e.problem }));
    const n = e.combinations?.length ?? 0;
    parts.push(h("dl", { class: "stats iv-summary" },
      h("div", {}, h("dt", { text: "Level" }), h("dd", { class: "iv-levels", text: levelsText(e.levels) })),
      h("div", {}, h("dt", { text: "IV" }), h("dd", { class: "iv-percent", text: e.percent ? range({ min: fix(e.percent.min), max: fix(e.percent.max) }, "%") : "–" })),
      h("div", {}, h("dt", { text: "Attack" }), h("dd", { text: range(e.attack) })),
      h("div", {}, h("dt", { text: "Defense" }), h("dd", { text: range(e.defense) })),
      h("div", {}, h("dt", { text: "HP" }), h("dd", { text: range(e.stamina) })),
      h("div", {}, h("dt", { text: "Combinations" }), h("dd", { class: "iv-count", text: String(n) }))));
    if (e.evolveNow?.length) {
      // Poke Genie's evolve preview: what each later evolution would show if evolved now.
      parts.push(h("p", { class: "iv-evolve" }, h("strong", { text: "Evolve now: " }),
        ...e.evolveNow.flatMap((v, i) => [i ? " · " : "", `${v.species.name} CP ${range(v.cp)}, HP ${range(v.hp)}`])));
    }
    if (n) parts.push(this.combinationsTable(e));
    if (e.chosen) {
      if (e.plan?.length) parts.push(this.planner(e));
      if (e.leagues?.length) parts.push(this.pvp(e));
    } else if (n > 1) {
      parts.push(h("p", { class: "muted", text: "Choose a combination above for the power-up planner and PvP ranks." }));
    }
    this.element.replaceChildren(...parts);
    this.element.dataset.state = "ready";
    this.element.dataset.count = String(n);
  }

  combinationsTable(e) {
    const caption = h("caption", {}, `Every combination (${e.combinations.length})`,
      e.combinations.length > 1 ? h("span", { class: "muted", text: " — choose a row" }) : "");
    const body = h("tbody");
    const rows = [...e.combinations].sort((a, b) => b.percent - a.percent || a.level - b.level);
    const fill = (count) => {
      body.replaceChildren(...rows.slice(0, count).map((c) => {
        const chosen = sameIV(c, e.chosen);
        const row = h("tr", { tabindex: "0", class: chosen ? "chosen" : "", "aria-selected": chosen ? "true" : "false",
          "aria-label": `${percent(c.percent)}: attack ${c.attack}, defense ${c.defense}, HP ${c.stamina}, level ${c.level}${chosen ? ", chosen" : ""}` },
        h("td", { text: percent(c.percent) }), h("td", { text: String(c.attack) }), h("td", { text: String(c.defense) }),
        h("td", { text: String(c.stamina) }), h("td", { text: level(c.level) }));
        const choose = () => this.onChoose(c);
        row.addEventListener("click", choose);
        row.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); choose(); } });
        return row;
      }));
    };
    fill(this.shown);
    const table = h("table", { class: "iv-table iv-combos" }, caption,
      h("thead", {}, h("tr", {}, ["IV", "Atk", "Def", "HP", "Level"].map((t) => h("th", { scope: "col", text: t })))), body);
    const wrap = h("div", { class: "table-wrap iv-combos-wrap" }, table);
    if (rows.length > this.shown) {
      const more = h("button", { type: "button", class: "more", text: `Show all ${rows.length}` });
      more.addEventListener("click", () => { fill(rows.length); more.remove(); });
      return h("div", {}, wrap, more);
    }
    return wrap;
  }

  planner(e) {
    const plan = e.plan;
    const id = `plan-${Math.random().toString(36).slice(2, 8)}`;
    const slider = h("input", { type: "range", id, min: String(plan[0].level), max: String(plan[plan.length - 1].level), step: "0.5",
      value: String(plan[plan.length - 1].level) });
    const summary = h("p", { class: "iv-plan-summary", "aria-live": "polite" });
    const body = h("tbody");
    const update = () => {
      const target = Number(slider.value);
      const rows = plan.filter((p) => p.level <= target);
      const last = rows[rows.length - 1] || plan[0];
      summary.textContent = `To level ${last.level}: CP ${number(last.cp)}, HP ${number(last.hp)} — ${number(last.stardust)} stardust, ` +
        `${number(last.candy)} candy${last.xlCandy ? `, ${number(last.xlCandy)} XL candy` : ""}.`;
      body.replaceChildren(...rows.map((p) => h("tr", {}, h("td", { text: level(p.level) }), h("td", { text: number(p.cp) }),
        h("td", { text: number(p.hp) }), h("td", { text: number(p.stardust) }), h("td", { text: number(p.candy) }), h("td", { text: number(p.xlCandy) }))));
    };
    slider.addEventListener("input", update);
    update();
    const c = e.chosen;
    return h("section", { class: "iv-planner", "aria-label": "Power-up planner" },
      h("h3", { text: `Power-up planner — ${c.attack}/${c.defense}/${c.stamina} at level ${c.level}` }),
      h("div", { class: "iv-field" }, h("label", { for: id, text: "Power up to level" }), slider), summary,
      h("div", { class: "table-wrap iv-plan-wrap" }, h("table", { class: "iv-table iv-plan" },
        h("thead", {}, h("tr", {}, ["Level", "CP", "HP", "Dust", "Candy", "XL"].map((t) => h("th", { scope: "col", text: t })))), body)),
      h("p", { class: "muted small", text: "Costs add up from the current level." }),
      this.rename(e.chosen));
  }

  /** The nickname to copy into the game, so the IVs stay on the Pokémon. */
  rename(c) {
    const text = nicknameFor(c);
    const field = h("input", { class: "iv-nickname", readonly: "", value: text, "aria-label": "Name that keeps the IVs", size: "12" });
    const copy = h("button", { type: "button", text: "Copy" });
    copy.addEventListener("click", async () => {
      field.select();
      try { await navigator.clipboard.writeText(text); copy.textContent = "Copied"; } catch { copy.textContent = "Selected: copy it"; }
    });
    return h("div", { class: "iv-rename" }, h("p", { class: "muted small", text: "Rename it in the game to keep the IVs with it:" }),
      h("p", { class: "iv-rename-row" }, field, copy));
  }

  pvp(e) {
    const tables = e.leagues.map((entry) => h("div", { class: "iv-pvp-species" },
      h("h4", {}, h("a", { href: speciesURL(entry.species.name, entry.species.form), target: "_blank", rel: "noopener",
        title: "Opens in a new tab", text: entry.species.name }),
        entry.species.form && entry.species.form !== "Normal" ? ` (${entry.species.form})` : "",
        entry.leagues[0]?.of ? h("span", { class: "muted small", text: ` — ranks of ${number(entry.leagues[0].of)}` }) : ""),
      h("div", { class: "table-wrap" }, h("table", { class: "iv-table iv-pvp" },
        h("thead", {}, h("tr", {}, ["League", "Rank", "Level", "CP", "% best"].map((t) => h("th", { scope: "col", text: t })))),
        h("tbody", {}, entry.leagues.map((l) => h("tr", {},
          h("td", { text: LEAGUES[l.league] || l.league }), h("td", { text: l.rank ? `#${number(l.rank)}` : "–", title: l.rank ? `rank ${l.rank} of ${l.of}` : null }),
          h("td", { text: level(l.level) }), h("td", { text: number(l.cp) }), h("td", { text: percent(l.percentOfBest) }))))))));
    return h("section", { class: "iv-pvp-section", "aria-label": "PvP ranks" }, h("h3", { text: "PvP ranks" }),
      h("p", { class: "muted small", text: "Rank by stat product (attack × defense × HP at the highest level under the league’s cap, " +
        "up to level 50); equal stat products share a rank; with an IV floor (traded, raid …) only combinations at or above the floor are ranked." }),
      ...tables);
  }
}

const CIRCLED = "⓪①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮";

/**
 * A nickname for the game's rename box (12 characters at most) that keeps the IVs on the
 * Pokémon, as Calcy IV's and Poke Genie's renamers do: the percentage, then attack, defense and
 * HP ("91 15-14-13", at most "100 15-15-15"). Plain digits, not the renamers' circled ones:
 * every font has them (a desktop without one shows ⑮ as a box).
 */
export function nicknameFor(c) {
  return `${Math.round(c.percent)} ${c.attack}-${c.defense}-${c.stamina}`;
}

/**
 * The IVs a nickname carries, as the renamers write them: three circled numbers ("⑮⑭⑬", what
 * `nicknameFor` writes) or three numbers 0–15 split by "/", "-" or "." ("15/14/13"); null when
 * it has none.
 */
export function ivsFromNickname(text) {
  if (!text) return null;
  const circled = [...text].filter((c) => CIRCLED.includes(c)).map((c) => CIRCLED.indexOf(c));
  if (circled.length === 3) return { attack: circled[0], defense: circled[1], stamina: circled[2] };
  const match = /(?:^|\D)(\d{1,2})[/.-](\d{1,2})[/.-](\d{1,2})(?:\D|$)/.exec(text);
  if (!match) return null;
  const [attack, defense, stamina] = match.slice(1).map(Number);
  return [attack, defense, stamina].every((v) => v <= 15) ? { attack, defense, stamina } : null;
}

/** The floor under every IV for how the Pokémon was obtained (the server's table): PvP ranks count only those above it. */
export function ivFloor(entry) {
  const floor = { wild: 0, trade: 0, weather: 4, hatched: 10, raid: 10, research: 10, "lucky-trade": 12, purified: 2 }[entry.obtained] ?? 0;
  return entry.purified ? Math.max(2, floor) : floor;
}

const fix = (value) => Number(value).toFixed(1).replace(/\.0$/, "");

/**
 * Recomputes the results (POST /api/v1/iv/evaluate) whenever the form changes, a moment
 * after the last keystroke; a chosen combination is kept while it still fits.
 */
export class LiveEvaluation {
  constructor(form, results, statusElement, { rules = {}, delay = 300, onResult = () => {} } = {}) {
    this.form = form; this.results = results; this.statusElement = statusElement;
    this.rules = rules; this.delay = delay; this.onResult = onResult;
    this.chosen = null; this.wanted = null; this.sequence = 0; this.timer = null; this.last = null;
    results.onChoose = (combination) => { this.chosen = combination; this.run({ choosing: true }); };
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), this.delay);
  }

  say(text, tone = "") {
    if (!this.statusElement) return;
    this.statusElement.textContent = text;
    this.statusElement.className = `status ${tone}`.trim();
  }

  /**
   * choosing: the player picked a row of the combinations on screen, so the chosen one fits
   * the entry; after an edit it may not, so the entry goes first alone and the chosen one is
   * asked for again only when it is still among the combinations.
   */
  async run({ choosing = false } = {}) {
    clearTimeout(this.timer);
    const sequence = ++this.sequence;
    const missing = this.form.missing();
    if (missing.length) {
      this.last = null;
      this.results.clear(`Type the ${missing.join(" and ")} to compute the IVs.`);
      this.say(`Missing: ${missing.join(", ")}.`, "warn");
      this.onResult(null);
      return;
    }
    const entry = this.form.entry;
    this.say("Computing…");
    this.results.element.dataset.state = "busy";
    try {
      let evaluation = await computeLane.run(() => this.request(entry, choosing ? this.chosen : null), () => sequence !== this.sequence);
      if (sequence !== this.sequence) return;
      if (this.chosen && !evaluation.combinations.some((c) => sameIV(c, this.chosen))) this.chosen = null;
      // One combination left: it is the one, planner and PvP at once (no row to choose).
      if (!this.chosen && evaluation.combinations.length === 1) this.chosen = evaluation.combinations[0];
      // IVs the nickname carries (`wanted`): their combination, when the readings allow it.
      const w = this.wanted;
      if (!this.chosen && w) this.chosen = evaluation.combinations.find((c) => c.attack === w.attack && c.defense === w.defense && c.stamina === w.stamina) ?? null;
      if (this.chosen && !choosing && !evaluation.chosen) {
        evaluation = await computeLane.run(() => this.request(entry, this.chosen), () => sequence !== this.sequence);
        if (sequence !== this.sequence) return;
      }
      if (evaluation.chosen) this.chosen = evaluation.chosen;
      this.last = evaluation;
      this.results.render(evaluation);
      const n = evaluation.combinations.length;
      this.say(n ? `${n} combination${n === 1 ? "" : "s"} fit.` : evaluation.problem || "No combination fits.", n ? "ok" : "warn");
      this.onResult(evaluation);
    } catch (error) {
      if (sequence !== this.sequence) return;
      if (choosing && error.status === 422) { // the entry changed under the click: again without the choice
        this.chosen = null;
        return this.run();
      }
      this.last = null;
      this.results.clear();
      this.results.element.dataset.state = "error";
      this.say(error.message, "bad");
      this.onResult(null, error);
    }
  }

  request(entry, chosen) {
    const body = { entry, rules: { maxLevel: 50, ivFloor: ivFloor(entry), ...this.rules } };
    if (chosen) body.chosen = { level: chosen.level, attack: chosen.attack, defense: chosen.defense, stamina: chosen.stamina, percent: chosen.percent };
    return api("/api/v1/iv/evaluate", { method: "POST", json: body });
  }
}
