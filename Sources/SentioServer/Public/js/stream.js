// A live stream to the server: a WebSocket that sends frames (or samples) and hands each reply
// to a callback, reconnecting with back-off when the connection drops.

/** The WebSocket address of a server path on this page's origin (wss: on https pages). */
export function socketURL(path) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}

export class StreamClient {
  /**
   * @param {string} path e.g. "/api/v1/stream/faces?maxFaces=1"
   * @param {{onMessage: (reply: object) => void, onState?: (state: string, detail?: string) => void}} handlers
   */
  constructor(path, { onMessage, onState = () => {} }) {
    this.path = path;
    this.onMessage = onMessage;
    this.onState = onState;
    this.socket = null;
    this.closed = false;
    this.retry = 0;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    this.onState("connecting");
    const socket = new WebSocket(socketURL(this.path));
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.addEventListener("open", () => { this.retry = 0; this.onState("open"); });
    socket.addEventListener("message", (event) => {
      if (typeof event.data !== "string") return;
      let reply;
      try { reply = JSON.parse(event.data); } catch { return; }
      this.onMessage(reply);
    });
    socket.addEventListener("close", (event) => {
      if (this.closed) return;
      const wait = Math.min(10000, 500 * 2 ** this.retry++);
      this.onState("reconnecting", event.reason || (navigator.onLine ? "the server closed the connection" : "you are offline"));
      setTimeout(() => this.connect(), wait);
    });
  }

  get isOpen() { return this.socket?.readyState === WebSocket.OPEN; }

  /** Sends a frame (Blob/ArrayBuffer) or a JSON value; false when not connected. */
  send(data) {
    if (!this.isOpen) return false;
    this.socket.send(data instanceof Blob || data instanceof ArrayBuffer ? data : JSON.stringify(data));
    return true;
  }

  close() {
    this.closed = true;
    this.socket?.close(1000, "done");
  }
}
