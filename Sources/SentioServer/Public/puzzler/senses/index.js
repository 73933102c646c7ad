// The capture a level needs, chosen by its `sense`. Each returns {start(), reply(r), stop(),
// detail} and draws into the stage's elements; `needsGesture`: start from a tap (permissions,
// audio), `label`: that button's words.
import { cameraSense } from "/puzzler/senses/camera.js";
import { soundSense } from "/puzzler/senses/sound.js";
import { motionSense } from "/puzzler/senses/motion.js";
import { deviceSense } from "/puzzler/senses/device.js";
import { sosSense, drawingSense } from "/puzzler/senses/touch.js";

export function createSense(level, view, el, options = {}) {
  switch (level.sense) {
    case "face": case "colour": case "objects": case "hands":
      el.video.classList.remove("hidden");
      el.overlay.classList.remove("hidden");
      return make(cameraSense(level, view, el), "Start the camera");
    case "sound":
      return make(soundSense(level, view, el), "Start the microphone");
    case "motion":
      return make(motionSense(level, view, el, options), "Start the motion sensors");
    case "device":
      return make(deviceSense(level, view, el, options), null);
    case "drawing":
      return make(drawingSense(level, view, el), null);
    case "touch":
      return make(sosSense(level, view, el), null);
    default:
      return { start() { view.wait("sense", { icon: "?", text: `This page does not know how to play a “${level.sense}” level yet.` }); }, reply() {}, stop() {}, needsGesture: false };
  }
}

/** `label`: the start button's words when the sense starts from a tap; null starts at once. */
function make(sense, label) {
  sense.needsGesture = !!label;
  sense.label = label;
  return sense;
}
