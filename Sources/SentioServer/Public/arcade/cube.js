// The cube that follows the phone: three.js from Debian's libjs-three (served at /vendor/three/),
// its quaternion the phone's attitude relative to the reference. The phone's axes are the
// scene's (x right, y up, z towards the viewer), as if the phone lay face-on behind the screen.
// Without WebGL (or three.js) the same cube is drawn as a wireframe on a 2-D canvas.

const faces = ["#4f46e5", "#0f8a5f", "#e5484d", "#ffc23d", "#63e6be", "#8b85ff"];

export class Cube {
  constructor(host) {
    this.host = host;
    this.quaternion = [1, 0, 0, 0];
    this.renderer = null;
    this.ready = this.init();
  }

  async init() {
    try {
      const THREE = await import("/vendor/three/three.module.js");
      const canvas = document.createElement("canvas");
      const gl = canvas.getContext("webgl2") || canvas.getContext("webgl");
      if (!gl) throw new Error("no WebGL");
      this.renderer = new THREE.WebGLRenderer({ canvas, context: gl, antialias: false, alpha: true });
      this.scene = new THREE.Scene();
      this.camera = new THREE.PerspectiveCamera(40, 1, 0.1, 100);
      this.camera.position.set(0, 0, 6);
      const materials = faces.map((color) => new THREE.MeshStandardMaterial({ color, roughness: 0.5 }));
      // A phone-shaped box: wider along y (the phone's top), thin along z (its screen normal).
      this.mesh = new THREE.Mesh(new THREE.BoxGeometry(1.3, 2.4, 0.6), materials);
      this.scene.add(this.mesh);
      this.scene.add(new THREE.AmbientLight(0xffffff, 0.55));
      const light = new THREE.DirectionalLight(0xffffff, 0.8); light.position.set(3, 4, 5); this.scene.add(light);
      host(this.host, canvas);
      this.mode = `three.js r${THREE.REVISION}`;
    } catch (error) {
      this.canvas = document.createElement("canvas");
      host(this.host, this.canvas);
      this.mode = `2-D canvas (${error.message})`;
    }
  }

  /** Shows attitude `q` = [w, x, y, z]. */
  show(q) {
    this.quaternion = q;
    const [w, x, y, z] = q;
    if (this.renderer) {
      const { clientWidth: cw, clientHeight: ch } = this.host;
      if (cw && ch && (this.width !== cw || this.height !== ch)) {
        this.width = cw; this.height = ch;
        this.renderer.setPixelRatio(Math.min(2, window.devicePixelRatio || 1));
        this.renderer.setSize(cw, ch, false);
        this.camera.aspect = cw / ch; this.camera.updateProjectionMatrix();
      }
      this.mesh.quaternion.set(x, y, z, w);
      this.renderer.render(this.scene, this.camera);
    } else if (this.canvas) {
      wireframe(this.canvas, q);
    }
  }

  /** The quaternion the scene shows ([w, x, y, z]), read back from the mesh. */
  shown() {
    if (this.mesh) { const m = this.mesh.quaternion; return [m.w, m.x, m.y, m.z]; }
    return this.quaternion;
  }
}

function host(element, canvas) {
  canvas.className = "cube-canvas";
  canvas.setAttribute("aria-hidden", "true");
  element.append(canvas);
}

/** The box's edges projected with a simple perspective (the fallback). */
function wireframe(canvas, [w, x, y, z]) {
  const ratio = window.devicePixelRatio || 1;
  canvas.width = canvas.clientWidth * ratio; canvas.height = canvas.clientHeight * ratio;
  const ctx = canvas.getContext("2d"), cw = canvas.width, ch = canvas.height, s = Math.min(cw, ch) * 0.22;
  const rotate = ([px, py, pz]) => {
    const tx = 2 * (y * pz - z * py), ty = 2 * (z * px - x * pz), tz = 2 * (x * py - y * px);
    return [px + w * tx + (y * tz - z * ty), py + w * ty + (z * tx - x * tz), pz + w * tz + (x * ty - y * tx)];
  };
  const corners = [];
  for (const a of [-0.65, 0.65]) for (const b of [-1.2, 1.2]) for (const c of [-0.3, 0.3]) corners.push(rotate([a, b, c]));
  const project = ([px, py, pz]) => { const k = 6 / (6 - pz); return [cw / 2 + px * s * k, ch / 2 - py * s * k]; };
  ctx.clearRect(0, 0, cw, ch); ctx.strokeStyle = "#8b85ff"; ctx.lineWidth = 2 * ratio;
  for (let i = 0; i < 8; i++) for (let j = i + 1; j < 8; j++) {
    if ([1, 2, 4].includes(i ^ j)) {
      const [a, b] = [project(corners[i]), project(corners[j])];
      ctx.beginPath(); ctx.moveTo(...a); ctx.lineTo(...b); ctx.stroke();
    }
  }
}
