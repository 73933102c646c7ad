// Drawing the server's observations over a video: coordinates are fractions of the frame
// (0…1, top-left origin), so they scale to the canvas whatever its size.

const HAND_BONES = [[0,1],[1,2],[2,3],[3,4],[0,5],[5,6],[6,7],[7,8],[5,9],[9,10],[10,11],[11,12],
  [9,13],[13,14],[14,15],[15,16],[13,17],[17,18],[18,19],[19,20],[0,17]];
const POSE_BONES = [[11,12],[11,13],[13,15],[12,14],[14,16],[11,23],[12,24],[23,24],[23,25],[25,27],[24,26],[26,28],
  [27,29],[29,31],[27,31],[28,30],[30,32],[28,32],[15,17],[15,19],[15,21],[17,19],[16,18],[16,20],[16,22],[18,20],
  [0,1],[1,2],[2,3],[3,7],[0,4],[4,5],[5,6],[6,8],[9,10]];

/** Fits the canvas's pixels to its displayed size (sharp on high-density screens). */
export function fit(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const w = Math.round(canvas.clientWidth * ratio), h = Math.round(canvas.clientHeight * ratio);
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  return ratio;
}

/** The rectangle the frame occupies inside the canvas (object-fit: contain). */
function frameRect(canvas, frameWidth, frameHeight) {
  const scale = Math.min(canvas.width / frameWidth, canvas.height / frameHeight);
  const w = frameWidth * scale, h = frameHeight * scale;
  return { x: (canvas.width - w) / 2, y: (canvas.height - h) / 2, w, h };
}

export function draw(canvas, kind, observation) {
  const ratio = fit(canvas);
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (!observation) return;
  const r = frameRect(canvas, observation.width || 640, observation.height || 480);
  const at = (p) => [r.x + p[0] * r.w, r.y + p[1] * r.h];
  const dot = (p, size, color) => { const [x, y] = at(p); ctx.fillStyle = color; ctx.fillRect(x - size / 2, y - size / 2, size, size); };
  const line = (a, b) => { const [x1, y1] = at(a), [x2, y2] = at(b); ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke(); };
  ctx.lineWidth = 2 * ratio;
  if (kind === "faces") {
    for (const face of observation.faces || []) {
      if (face.box) {
        ctx.strokeStyle = "rgba(99, 230, 190, 0.9)";
        ctx.strokeRect(r.x + face.box.x * r.w, r.y + face.box.y * r.h, face.box.width * r.w, face.box.height * r.h);
      }
      for (const p of face.landmarks || []) dot(p, 2.2 * ratio, "rgba(255, 255, 255, 0.85)");
      for (const p of face.keypoints || []) dot(p, 6 * ratio, "rgba(255, 90, 120, 0.95)");
    }
  } else if (kind === "hands") {
    for (const hand of observation.hands || []) {
      const points = hand.landmarks || [];
      ctx.strokeStyle = "rgba(255, 214, 102, 0.95)";
      for (const [a, b] of HAND_BONES) if (points[a] && points[b]) line(points[a], points[b]);
      for (const p of points) dot(p, 6 * ratio, "rgba(255, 90, 120, 0.95)");
    }
  } else if (kind === "pose") {
    for (const pose of observation.poses || []) {
      const points = pose.landmarks || [];
      const seen = (p) => p && (p.length < 4 || p[3] > 0.5);
      ctx.strokeStyle = "rgba(120, 200, 255, 0.95)";
      for (const [a, b] of POSE_BONES) if (seen(points[a]) && seen(points[b])) line(points[a], points[b]);
      for (const p of points) if (seen(p)) dot(p, 6 * ratio, "rgba(255, 90, 120, 0.95)");
    }
  }
}
