// The paired phone: /puzzler/phone.html?room=CODE&level=ID. It asks the server which level the
// room was paired for, captures that level's sense (motion or device signals, usually) and plays
// the level socket with room=CODE: the server plays for the desktop's player and carries every
// reply to the desktop's page.
import { api } from "/js/account.js";
import { browserSignal, SENSE_WORDS } from "/puzzler/api.js";
import { LevelView, showSolved, actionButton, showWaiting } from "/puzzler/play.js";
import { createSense } from "/puzzler/senses/index.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const room = (params.get("room") || "").trim().toUpperCase();
const el = {
  stage: $("stage"), video: $("video"), overlay: $("overlay"), scene: $("scene"), wait: $("wait"), chip: $("chip"),
  message: $("message"), ring: $("ring"), ringText: $("ring-text"), darkButton: $("dark-button"),
};
const state = window.sentioPuzzlerPhone = { room, level: null, view: null, sense: null };

async function main() {
  $("room").textContent = room ? `Room ${room}` : "No room";
  if (!/^[A-Z0-9]{3,12}$/.test(room)) { showWaiting(el.wait, "This page needs a room code: scan the QR code on the level's page on your computer."); return; }
  let pairing;
  try {
    pairing = await api(`/api/v1/puzzler/pairings/${encodeURIComponent(room)}`);
  } catch (error) {
    showWaiting(el.wait, error.status === 404 ? `Room ${room} is closed or was never opened. On the computer, open the level and pair again.`
      : `Could not join room ${room}: ${error.message}`);
    return;
  }
  const level = state.level = pairing.level;
  if (params.get("level") && params.get("level") !== level.id) {
    // The room decides: the link's level is only a hint for people reading the address.
    console.info(`room ${room} is paired for ${level.id}, not ${params.get("level")}`);
  }
  document.title = `${level.title} — paired phone — Puzzler`;
  $("number").textContent = `Level ${level.number}${SENSE_WORDS[level.sense] ? ` · with ${SENSE_WORDS[level.sense]}` : ""}`;
  $("title").textContent = level.title;
  $("clue").textContent = level.clue || "";
  const signal = browserSignal(level);
  if (signal?.text) { $("signal").textContent = `Here the browser senses: ${signal.text}`; $("signal").classList.remove("hidden"); }
  el.wait.classList.add("hidden");
  const view = state.view = new LevelView(level, el, {
    room,
    offlineOK: level.id === "offline",
    onReply: (reply) => { state.sense?.reply(reply); $("reset").disabled = false; },
    onSolved: (reply) => showSolved(reply, new Map(), { back: null, note: "Well done! The computer's screen shows the star lighting up.",
                                                        onClose: () => { view.resume(); state.sense?.clear?.(); } }),
  });
  const sense = state.sense = createSense(level, view, el, {
    onLacking: (what) => {
      $("signal").classList.remove("hidden");
      $("signal").textContent = `This browser cannot sense ${what.join(" or ")}.${signal?.alternative ? ` ${signal.alternative}` : ""}`;
    },
  });
  $("reset").addEventListener("click", () => { view.send({ type: "reset" }, { expectReply: false }); sense.clear?.(); });
  el.darkButton.addEventListener("click", () => { view.send({ type: "button" }); el.darkButton.classList.add("hidden"); });
  if (sense.needsGesture) {
    const go = () => { view.wait("start", null); sense.start(); };
    view.wait("start", { icon: "✦", text: "Tap to start. Allow the sensors when the phone asks.", actions: [actionButton(sense.label, go, true)] });
  } else sense.start();
}

main();
