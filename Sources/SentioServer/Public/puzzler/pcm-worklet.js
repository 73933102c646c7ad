// The microphone's samples in chunks of `chunk` frames (about 100 ms), posted to the page as
// float32 mono (the first channel). Runs in the AudioWorklet's thread.
class PCMChunker extends AudioWorkletProcessor {
  constructor(options) {
    super();
    this.size = Math.max(128, options?.processorOptions?.chunk || 4800);
    this.buffer = new Float32Array(this.size);
    this.filled = 0;
  }

  process(inputs) {
    const channel = inputs[0]?.[0];
    if (channel) {
      let offset = 0;
      while (offset < channel.length) {
        const n = Math.min(channel.length - offset, this.size - this.filled);
        this.buffer.set(channel.subarray(offset, offset + n), this.filled);
        this.filled += n;
        offset += n;
        if (this.filled === this.size) {
          this.port.postMessage(this.buffer.buffer, [this.buffer.buffer]);
          this.buffer = new Float32Array(this.size);
          this.filled = 0;
        }
      }
    }
    return true;
  }
}
registerProcessor("pcm-chunker", PCMChunker);
