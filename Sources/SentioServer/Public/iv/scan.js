// The scan page: screenshots (file picker, drag and drop, paste) read one after another by
// POST /api/v1/iv/scan; one card per screenshot with each reading's crop beside its editable
// value, the results recomputed as the player corrects them, and Save for signed-in players.
import { api, session, showAccountLink, status } from "/js/account.js";
import { EntryForm, Results, LiveEvaluation, computeLane, entryFromScan, ivsFromNickname, unreadFields, h, percent } from "/iv/entry.js";
import { takenOn } from "/iv/taken.js";
import { cardID, keep, forget, forgetAll, kept } from "/iv/keep.js";

const $ = (id) => document.getElementById(id);
const KEY = "sentio.iv.trainerLevel";
const queue = [];
const cards = [];
let busy = false, total = 0, done = 0, signedIn = null;
/** The cards of the screenshots added last: the page's date field applies to them. */
let lastBatch = [];

/** What tests read: the scan reports in the order the cards were made. */
window.sentioIV = { reports: [], cards };

const trainerLevel = $("trainer-level"), statsAsOf = $("stats-as-of");
trainerLevel.value = localStorage.getItem(KEY) ?? "";
const context = () => {
  const value = Number(trainerLevel.value);
  return { trainerLevel: Number.isInteger(value) && value >= 1 && value <= 80 ? value : null, statsAsOf: statsAsOf.value || null };
};
trainerLevel.addEventListener("change", () => {
  const { trainerLevel: value } = context();
  if (value) localStorage.setItem(KEY, String(value)); else localStorage.removeItem(KEY);
  cards.forEach((card) => card.live?.schedule());
});
// The date belongs to each screenshot (issue 38): the field dates the screenshots added next,
// and re-dates those added last — never earlier batches, nor a card whose date was typed.
statsAsOf.addEventListener("change", () => {
  for (const card of lastBatch) if (!card.dateTyped && cards.includes(card)) dateCard(card).then(() => recheck(card));
});

/** The trainer level and this card's own date. */
const cardContext = (card) => () => ({ trainerLevel: context().trainerLevel, statsAsOf: card.date.value || null });

/** Sets a card's date: the page's field when set, else the screenshot's own (EXIF or file date). */
async function dateCard(card) {
  const own = card.file ? await takenOn(card.file) : null;
  const chosen = statsAsOf.value ? { date: statsAsOf.value, source: "page" } : own;
  card.date.value = chosen?.date ?? "";
  card.dateNote.textContent = { exif: "from the screenshot", file: "the file's date", page: "" }[chosen?.source] ?? "unknown";
  if (card.report) remember(card);
}

/** After a date change: a scan the date decided (no species, or doubts) is read again; else the IVs are recomputed. */
function recheck(card) {
  if (!card.report) return;
  if (!card.report.species || card.report.doubts?.length) scan({ file: card.file, card });
  else card.live?.schedule();
}

function add(files) {
  const images = [...files].filter((file) => file.type.startsWith("image/") || file.type === "");
  if (!images.length) { status($("status"), "Those are not pictures: choose PNG, JPEG or WebP screenshots.", "warn"); return; }
  lastBatch = [];
  for (const file of images) {
    const card = makeCard(file);
    lastBatch.push(card);
    queue.push({ file, card });
  }
  // On a phone the upload panel fills the screen: bring the new card up (issue 38).
  const newest = lastBatch.at(-1)?.element;
  if (newest && newest.getBoundingClientRect().top > innerHeight * 0.6) newest.scrollIntoView({ block: "start" });
  $("clear-cards").classList.remove("hidden");
  total += images.length;
  showProgress();
  if (!busy) next();
}

function showProgress() {
  $("progress-wrap").classList.toggle("hidden", total === 0 || done === total);
  $("progress").max = Math.max(1, total);
  $("progress").value = done;
}

async function next() {
  const job = queue.shift();
  if (!job) {
    busy = false;
    status($("status"), `Read ${done} screenshot${done === 1 ? "" : "s"}.`, "ok");
    showProgress();
    return;
  }
  busy = true;
  status($("status"), `Reading ${done + 1} of ${total}: ${job.file.name || "pasted picture"}…`);
  await scan(job);
  done += 1;
  showProgress();
  next();
}

function makeCard(file, id = cardID(), addedAt = Date.now()) {
  const card = { id, addedAt, file, url: file ? URL.createObjectURL(file) : null, report: null };
  const title = file ? file.name || "Pasted screenshot" : "Typed by hand";
  const titleId = `card-${id}-title`;  // unique, also after cards were removed
  card.status = h("p", { class: "status", role: "status", "aria-live": "polite", text: file ? "Waiting…" : "" });
  card.element = h("article", { class: "iv-card", "aria-labelledby": titleId, "data-file": file?.name || "" });
  const remove = h("button", { type: "button", class: "icon-button", "aria-label": `Remove ${title}`, text: "✕" });
  remove.addEventListener("click", () => {
    forget(card.id);
    card.element.remove();
    if (card.url) URL.revokeObjectURL(card.url);
    cards.splice(cards.indexOf(card), 1);
  });
  const thumb = card.url ? h("a", { href: card.url, target: "_blank", rel: "noopener", class: "iv-thumb" },
    h("img", { src: card.url, alt: `Screenshot ${title}` })) : "";
  const dateId = `card-${id}-date`;
  card.date = h("input", { id: dateId, type: "date", min: "2016-07-06" });
  card.dateNote = h("span", { class: "muted small" });
  card.date.addEventListener("change", () => {
    card.dateTyped = true;
    card.dateNote.textContent = "";
    remember(card);
    recheck(card);
  });
  const dated = file ? h("p", { class: "iv-card-date" }, h("label", { for: dateId, text: "Taken on " }), card.date, " ", card.dateNote) : "";
  card.element.append(h("header", { class: "iv-card-head" }, thumb,
    h("div", { class: "iv-card-title" }, h("h2", { id: titleId, text: title }), dated, card.status), remove));
  card.body = h("div", { class: "iv-card-body" });
  card.element.append(card.body);
  $("cards").prepend(card.element);
  cards.push(card);
  return card;
}

async function scan({ file, card }) {
  card.status.textContent = "Reading…";
  if (!card.dated) { card.dated = true; await dateCard(card); }
  const query = new URLSearchParams();
  const { trainerLevel: tl, statsAsOf: date } = cardContext(card)();
  if (tl) query.set("trainerLevel", String(tl));
  if (date) query.set("statsAsOf", date);
  let report = null, image = null;
  try {
    image = new Image();
    image.src = card.url;
    await image.decode().catch(() => { image = null; });
    report = await computeLane.run(() => api(`/api/v1/iv/scan${String(query) ? `?${query}` : ""}`, { method: "POST", body: file, type: file.type || "image/png" }));
  } catch (error) {
    const reason = error.message.replace(/[.\s]*$/, "");
    status(card.status, `Could not read this screenshot: ${reason}. Type the values in below.`, "bad");
    fill(card, null, image);
    remember(card);
    return;
  }
  card.report = report;
  window.sentioIV.reports.push({ file: file.name, report });
  present(card, report, image);
  remember(card);
}

/** A scan's card: the values read, their crops and what the scan was sure of. `entry`: the player's corrections kept from before. */
function present(card, report, image, entry = null) {
  const unread = unreadFields(report);
  const name = report.fields?.name?.text;
  if (!report.species && name) {
    // The name was read but no such species fits the other readings with the stats of that day.
    fill(card, report, image, entry);
    const date = card.date.value;
    // Only a name that could be a species' is offered as one: a nickname ("Ex99@OOI1AB") is not.
    const plausible = /^[\p{L}][\p{L} .'’-]{2,}$/u.test(name);
    const use = plausible ? h("button", { type: "button", text: `Use “${name}”` }) : "";
    use && use.addEventListener("click", () => {
      useSpecies(card, name);
      use.remove();
    });
    card.status.className = "status warn";
    card.status.replaceChildren(plausible
      ? `Read the name “${name}”, but no such Pokémon fits the CP, HP and stardust read with the stats of ${date || "today"}. ` +
        "Check the values, or set the date the screenshot was taken above (the game's stats changed over the years). "
      : `Read “${name}”, a nickname rather than a species: type the species in below. `, use);
    return;
  }
  if (!report.species || report.hpMax === null || report.hpMax === undefined) {
    status(card.status, `Could not read the ${unread.join(", ")}: type ${unread.length > 1 ? "them" : "it"} in below.`, "warn");
  } else if (report.doubts?.length) {
    fill(card, report, image, entry);
    showDoubts(card, report);
    return;
  } else if (unread.length) {
    status(card.status, `Read, except the ${unread.join(", ")}. Check each value against its crop.`, "warn");
  } else {
    status(card.status, "Read. Check each value against its crop.", "ok");
  }
  fill(card, report, image, entry);
}

/** Puts `name` in the card's species field and recomputes (its forms first). */
function useSpecies(card, name) {
  card.form.inputs.species.value = name;
  card.form.inputs.species.dispatchEvent(new Event("change", { bubbles: true }));
  card.form.setForms(null).then(() => card.live.run());
}

/**
 * A scan whose readings disagree (the name read is another species than the numbers fit, the
 * candy another family, the date unknown where it changes the IVs): amber, the reasons, and a
 * button for each other species to choose.
 */
function showDoubts(card, report) {
  const others = [...new Set(report.doubts.filter((d) => d.kind !== "date").flatMap((d) => d.choices))]
    .filter((name) => name !== report.species);
  const buttons = others.map((name) => {
    const use = h("button", { type: "button", class: "choice", text: `It is ${name}` });
    use.addEventListener("click", () => {
      useSpecies(card, name);
      status(card.status, `Species set to ${name}. Check each value against its crop.`, "ok");
    });
    return use;
  });
  card.status.className = "status warn";
  card.element.dataset.doubts = report.doubts.map((d) => d.kind).join(" ");
  card.status.replaceChildren(`Not sure: ${report.doubts.map((d) => d.message).join(" ")} `, ...buttons);
}

/** The card's form, results and save button (report null: typed by hand). */
function fill(card, report, image, corrected = null) {
  const evaluationStatus = h("p", { class: "status", role: "status", "aria-live": "polite" });
  const results = new Results();
  card.form = new EntryForm({
    entry: corrected ?? (report ? entryFromScan(report, cardContext(card)()) : { obtained: "wild" }),
    fields: report?.fields, image, contextValues: card.file ? cardContext(card) : context, onChange: () => card.live.schedule(),
  });
  card.live = new LiveEvaluation(card.form, results, evaluationStatus, { onResult: (evaluation) => updateSave(card, evaluation) });
  // A nickname that carries the IVs (a renamer's "91⑮⑭⑬" or "15/14/13") picks its combination
  // when the readings allow it: the planner and PvP at once.
  const named = ivsFromNickname(report?.fields?.name?.text);
  if (named) {
    card.live.wanted = named;
    card.element.dataset.nicknameIvs = `${named.attack}/${named.defense}/${named.stamina}`;
  }
  card.save = h("div", { class: "iv-save" });
  card.body.replaceChildren(
    h("div", { class: "iv-card-form" }, card.form.element),
    h("div", { class: "iv-card-results" }, evaluationStatus, results.element, card.save));
  buildSave(card);
  card.live.run();
}

function buildSave(card) {
  if (!signedIn) {
    card.save.replaceChildren(h("p", { class: "note" }, h("a", { href: "/account/?next=/iv/", text: "Sign in to keep a history" }),
      " of your Pokémon."));
    return;
  }
  card.saveButton = h("button", { type: "button", class: "primary", disabled: true, text: "Save to my Pokémon" });
  card.saveStatus = h("p", { class: "status", role: "status", "aria-live": "polite" });
  card.saveButton.addEventListener("click", () => save(card));
  card.save.replaceChildren(card.saveButton, card.saveStatus);
}

/** Keeps a screenshot's card on this device until it is saved or removed (keep.js). */
function remember(card) {
  if (!card.file || card.saved || !cards.includes(card)) return;
  keep({ id: card.id, addedAt: card.addedAt, name: card.file.name, type: card.file.type, lastModified: card.file.lastModified,
    blob: card.file, report: card.report, date: card.date.value, dateTyped: !!card.dateTyped, entry: card.form?.entry ?? null });
}

/** The cards kept from before (a reload, Back, a closed tab), shown as they were left. */
async function restore() {
  const records = await kept();
  for (const record of records) {
    const file = new File([record.blob], record.name, { type: record.type, lastModified: record.lastModified });
    const card = makeCard(file, record.id, record.addedAt);
    card.dated = true;
    card.date.value = record.date ?? "";
    card.dateTyped = record.dateTyped;
    let image = new Image();
    image.src = card.url;
    await image.decode().catch(() => { image = null; });
    card.report = record.report;
    if (record.report) present(card, record.report, image, record.entry);
    else {
      status(card.status, "Could not read this screenshot: type the values in below.", "bad");
      fill(card, null, image, record.entry);
    }
  }
  if (records.length) {
    status($("status"), `${records.length} screenshot${records.length === 1 ? "" : "s"} from before, kept on this device until saved or removed.`, "ok");
  }
  $("clear-cards").classList.toggle("hidden", !cards.length);
}

function updateSave(card, evaluation) {
  remember(card);
  if (card.saveButton) card.saveButton.disabled = !evaluation || !evaluation.combinations.length;
}

async function save(card) {
  card.saveButton.disabled = true;
  status(card.saveStatus, "Saving…");
  try {
    const data = new FormData();
    data.append("entry", JSON.stringify(card.form.entry));
    let answer;
    if (card.file && card.report) {
      data.append("fields", JSON.stringify(card.report.fields || {}));
      data.append("image", card.file, card.file.name || "screenshot.png");
      answer = await api("/api/v1/iv/collection", { method: "POST", body: data });
    } else {
      answer = await api("/api/v1/iv/collection", { method: "POST", json: { entry: card.form.entry } });
    }
    const p = answer.pokemon;
    const n = p.ivs?.length ?? 0;
    const said = {
      new: "Saved as a new Pokémon.",
      joined: `Joined an earlier scan of the same Pokémon: ${n === 1 ? `one combination left (${percent(p.percent?.min)})`
        : `${n} combinations left (${percent(p.percent?.min)}–${percent(p.percent?.max)})`}.`,
      sameImage: "This screenshot was saved before: its date is updated.",
    }[answer.kind] || "Saved.";
    card.saveStatus.replaceChildren(said, " ", h("a", { href: `/iv/pokemon.html?id=${encodeURIComponent(p.id)}`, text: "Open it" }));
    card.saveStatus.className = "status ok";
    card.element.dataset.saved = answer.kind;
    card.saved = true;
    forget(card.id);
    card.element.dataset.pokemonId = p.id;
  } catch (error) {
    status(card.saveStatus, `Not saved: ${error.message}`, "bad");
  } finally {
    card.saveButton.disabled = false;
  }
}

$("choose").addEventListener("click", () => $("files").click());
$("clear-cards").addEventListener("click", () => {
  forgetAll();
  for (const card of [...cards]) { card.element.remove(); if (card.url) URL.revokeObjectURL(card.url); }
  cards.length = 0;
  lastBatch = [];
  $("clear-cards").classList.add("hidden");
  status($("status"), "Cleared.", "ok");
});
$("files").addEventListener("change", () => { add($("files").files); $("files").value = ""; });
$("by-hand").addEventListener("click", () => {
  const card = makeCard(null);
  fill(card, null, null);
  card.form.inputs.species.focus();
});
const zone = $("dropzone");
for (const type of ["dragenter", "dragover"]) zone.addEventListener(type, (event) => { event.preventDefault(); zone.classList.add("over"); });
for (const type of ["dragleave", "drop"]) zone.addEventListener(type, () => zone.classList.remove("over"));
zone.addEventListener("drop", (event) => { event.preventDefault(); if (event.dataTransfer?.files?.length) add(event.dataTransfer.files); });
document.addEventListener("paste", (event) => {
  const files = [...(event.clipboardData?.items || [])].filter((item) => item.kind === "file").map((item) => item.getAsFile()).filter(Boolean);
  if (files.length) { event.preventDefault(); add(files); }
});

restore();
session().then((current) => {
  signedIn = current;
  $("guest-note").classList.toggle("hidden", !!current);
  cards.forEach((card) => card.form && buildSave(card));
  cards.forEach((card) => card.live?.last && updateSave(card, card.live.last));
});
showAccountLink();
