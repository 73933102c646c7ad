// Sound levels: the microphone (no automatic gain, noise suppression or echo cancellation, so
// the loudness is the room's), mono float32 PCM in chunks of ~100 ms from an AudioWorklet (a
// ScriptProcessor where there is none), each a binary message at `rate` on the level socket.
import { actionButton } from "/puzzler/play.js";

export function soundSense(level, view, el) {
  let context = null, stream = null, lastDetail = null;
  el.scene.innerHTML = `<div class="pz-meter" aria-hidden="true"><i></i><b class="pz-db">– dB</b></div>
    <p class="pz-heard" aria-live="polite"></p>`;
  const meter = el.scene.querySelector(".pz-meter i"), db = el.scene.querySelector(".pz-db"), heard = el.scene.querySelector(".pz-heard");

  async function start() {
    if (!window.isSecureContext || !navigator.mediaDevices?.getUserMedia) {
      view.wait("microphone", { icon: "♪", text: "The microphone needs a secure page: open the https:// address." });
      return;
    }
    // The audio context is made and resumed in the tap itself (this runs from the Start button):
    // Safari on an iPhone keeps a context made after an await — here, the permission prompt —
    // suspended, and the microphone's samples would never flow.
    context ??= new AudioContext();
    const resumed = context.state === "suspended" ? context.resume().catch(() => {}) : Promise.resolve();
    view.wait("microphone", { icon: "♪", text: "Starting the microphone… Allow it when the browser asks." });
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: { autoGainControl: false, noiseSuppression: false, echoCancellation: false, channelCount: 1 }, video: false });
    } catch (error) {
      const text = error.name === "NotAllowedError"
        ? "Microphone permission was refused. Allow the microphone for this site in the browser's settings, then try again."
        : error.name === "NotFoundError" ? "No microphone was found on this device." : `The microphone could not start: ${error.message}`;
      view.wait("microphone", { icon: "♪", text, actions: [actionButton("Try again", start, true)] });
      return;
    }
    await resumed;
    if (context.state === "suspended") await context.resume();
    const rate = context.sampleRate, chunk = Math.round(rate / 10);
    const source = context.createMediaStreamSource(stream);
    const silent = context.createGain();
    silent.gain.value = 0; // the node must reach the output to run; nothing is heard
    silent.connect(context.destination);
    const send = (buffer) => { if (view.isOpen) view.send(buffer); };
    if (context.audioWorklet) {
      await context.audioWorklet.addModule("/puzzler/pcm-worklet.js");
      const node = new AudioWorkletNode(context, "pcm-chunker", { processorOptions: { chunk }, numberOfInputs: 1, numberOfOutputs: 1, channelCount: 1 });
      node.port.onmessage = (event) => send(event.data);
      source.connect(node).connect(silent);
    } else {
      // Older browsers: 4096-frame callbacks gathered into ~100 ms chunks.
      const processor = context.createScriptProcessor(4096, 1, 1);
      let buffer = new Float32Array(chunk), filled = 0;
      processor.onaudioprocess = (event) => {
        const input = event.inputBuffer.getChannelData(0);
        let offset = 0;
        while (offset < input.length) {
          const n = Math.min(input.length - offset, chunk - filled);
          buffer.set(input.subarray(offset, offset + n), filled);
          filled += n; offset += n;
          if (filled === chunk) { send(buffer.buffer); buffer = new Float32Array(chunk); filled = 0; }
        }
      };
      source.connect(processor).connect(silent);
    }
    view.wait("microphone", null);
    view.connect({ rate });
    stream.getAudioTracks()[0]?.addEventListener("ended", () => view.wait("microphone", { icon: "♪", text: "The microphone stopped. Reload the page to start it again." }));
  }

  function reply(r) {
    if (r.type !== "level") return;
    const d = lastDetail = r.detail || {};
    if (typeof d.dbfs === "number") {
      const v = Math.max(0, Math.min(1, (d.dbfs + 60) / 60));
      // The ring never shrinks under its label ("-66 dB" needs about half the meter).
      meter.style.setProperty("--s", String(0.5 + 0.5 * v));
      const over = typeof d.threshold === "number" && d.dbfs >= d.threshold;
      meter.classList.toggle("over", over);
      db.textContent = d.dbfs < -90 ? "silence" : `${Math.round(d.dbfs)} dB`;
      if (typeof d.heldSeconds === "number" && d.heldSeconds > 0) db.textContent += `\n${d.heldSeconds.toFixed(1)} s`;
    }
    if (d.heard === true) heard.textContent = "Heard it!";
    else if (typeof d.heard === "string" && d.heard) heard.textContent = `“${d.heard}”`;
  }

  return { start, reply, stop() { stream?.getTracks().forEach((t) => t.stop()); context?.close(); }, get detail() { return lastDetail; } };
}
