// A course's weekly timetable on the professor's course page: its slots (a weekday and a local
// time in a time zone, from a first to a last date), the dates a slot does not take place
// (holidays), and "Create the lectures". Making the lectures is idempotent on the server, so the
// button can be pressed again after adding a slot or taking a holiday back; a holiday removes
// its lecture only while it was never opened.
import { $, ATT, api, h, status } from "/attendance/common.js";

const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
let course = null, changed = () => {};
const slotsPath = () => `${ATT}/courses/${encodeURIComponent(course.id)}/slots`;
const say = (text, tone) => status($("timetable-status"), text, tone);

/** Shows `current`'s timetable; `onLectures` runs when lectures were made or removed. */
export async function showTimetable(current, onLectures) {
  course = current;
  changed = onLectures;
  say("");
  if (!$("slot-zone").value) $("slot-zone").placeholder = `The server's (yours: ${Intl.DateTimeFormat().resolvedOptions().timeZone})`;
  $("slot-title").value = course.title.slice(0, 80);
  await load();
}

async function load() {
  try {
    render(await api(slotsPath()));
  } catch (error) {
    say(error.message, "bad");
  }
}

function render(slots) {
  $("slots").replaceChildren(...slots.map(slotItem));
  $("no-slots").classList.toggle("hidden", slots.length > 0);
  $("generate").disabled = slots.length === 0;
}

function slotItem(slot) {
  const when = `${WEEKDAYS[slot.weekday - 1]}s ${slot.startTime}, ${slot.durationMinutes} min`;
  const date = h("input", { type: "date", min: slot.firstDate, max: slot.lastDate, required: true, "aria-label": `A date without “${slot.title}”` });
  const form = h("form", { class: "att-exception-form" }, date, h("button", { type: "submit", class: "small-button" }, "No lecture that day"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api(`${slotsPath()}/${encodeURIComponent(slot.id)}/exceptions`, { method: "POST", json: { date: date.value } });
      await load();
      say(`No “${slot.title}” on ${date.value}; its lecture, if made and never opened, is removed.`, "ok");
      changed();
    } catch (error) {
      say(error.message, "bad");
    }
  });
  const remove = h("button", { type: "button", class: "small-button" }, "Delete the slot");
  remove.addEventListener("click", async () => {
    if (!window.confirm(`Delete “${slot.title}” (${when})?\n\nIts lectures never opened are removed; opened and confirmed ones stay.`)) return;
    try {
      const { removedLectures } = await api(`${slotsPath()}/${encodeURIComponent(slot.id)}`, { method: "DELETE" });
      say(`Deleted; ${removedLectures} lecture${removedLectures === 1 ? "" : "s"} never opened removed.`, "ok");
      await load();
      changed();
    } catch (error) {
      say(error.message, "bad");
    }
  });
  return h("li", { class: "att-slot", dataset: { slot: slot.id } },
    h("div", { class: "att-slot-head" },
      h("div", {}, h("strong", {}, slot.title), slot.room ? ` · ${slot.room}` : "",
        h("p", { class: "muted small" }, `${when} · ${slot.firstDate} to ${slot.lastDate} · ${slot.timeZone}`)),
      remove),
    slot.exceptions.length === 0 ? h("p", { class: "muted small" }, "No holidays.") :
      h("ul", { class: "att-exceptions", "aria-label": "Dates without a lecture" }, slot.exceptions.map((day) => {
        const back = h("button", { type: "button", class: "small-button", "aria-label": `Lecture on ${day} after all` }, "×");
        back.addEventListener("click", async () => {
          try {
            await api(`${slotsPath()}/${encodeURIComponent(slot.id)}/exceptions/${day}`, { method: "DELETE" });
            await load();
            say(`${day} is a lecture day again: press “Create the lectures” to make it.`, "ok");
          } catch (error) {
            say(error.message, "bad");
          }
        });
        return h("li", { class: "att-exception", dataset: { date: day } }, day, back);
      })),
    form);
}

$("new-slot").addEventListener("submit", async (event) => {
  event.preventDefault();
  const zone = $("slot-zone").value.trim();
  const draft = {
    weekday: Number($("slot-weekday").value), startTime: $("slot-start").value, durationMinutes: Number($("slot-duration").value),
    title: $("slot-title").value.trim(), room: $("slot-room").value.trim(), firstDate: $("slot-first").value, lastDate: $("slot-last").value,
    ...(zone ? { timeZone: zone } : {}),
  };
  try {
    const slot = await api(slotsPath(), { method: "POST", json: draft });
    say(`Added “${slot.title}”, ${WEEKDAYS[slot.weekday - 1]}s at ${slot.startTime} (${slot.timeZone}). Press “Create the lectures” to make them.`, "ok");
    await load();
  } catch (error) {
    say(error.message, "bad");
  }
});

$("generate").addEventListener("click", async () => {
  $("generate").disabled = true;
  try {
    const run = await api(`${ATT}/courses/${encodeURIComponent(course.id)}/timetable`, { method: "POST" });
    const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
    say(`Made ${plural(run.created, "lecture")}; ${run.existing} already there; ${plural(run.skipped, "holiday")} left out.`, "ok");
    changed();
  } catch (error) {
    say(error.message, "bad");
  } finally {
    $("generate").disabled = false;
  }
});
