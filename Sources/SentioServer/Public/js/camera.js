// The camera, and frames from it as JPEG.

/** Opens the camera; throws an Error whose message says what to do. */
export async function openCamera(video, facingMode = "user") {
  if (!window.isSecureContext || !navigator.mediaDevices?.getUserMedia) {
    throw new Error("The camera needs a secure page: open the https:// address (on a phone, accept the certificate warning once).");
  }
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 640 }, height: { ideal: 480 }, facingMode }, audio: false });
  } catch (error) {
    if (error.name === "NotAllowedError") throw new Error("Camera permission was refused. Allow the camera for this site in the browser's settings, then try again.");
    if (error.name === "NotFoundError" || error.name === "OverconstrainedError") throw new Error("No camera was found on this device.");
    throw new Error(`The camera could not start: ${error.message}`);
  }
  video.srcObject = stream;
  await video.play();
  return stream;
}

/** The video's current picture as a JPEG Blob of at most 640×480. */
export function grabJPEG(video, canvas, quality = 0.8) {
  const scale = Math.min(1, 640 / video.videoWidth, 480 / video.videoHeight);
  canvas.width = Math.round(video.videoWidth * scale);
  canvas.height = Math.round(video.videoHeight * scale);
  canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", quality));
}
