// When a screenshot was taken, as the page can know it without asking: the EXIF date a phone
// wrote into the file (JPEG's APP1, PNG's eXIf chunk), else the file's own date. The base stats
// in force on that day decide the IVs of an old screenshot (issue 38: the date belongs to each
// screenshot).

/** The game's first day: a date before it is no screenshot's (a file dated 1970, say). */
const LAUNCH = "2016-07-06";

/** YYYY-MM-DD of a local `Date`. */
export function isoDay(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * { date: "YYYY-MM-DD", source: "exif" | "file" } for `file`, or null when neither gives a day
 * between the game's launch and today.
 */
export async function takenOn(file) {
  const today = isoDay(new Date());
  const usable = (day) => day && day >= LAUNCH && day <= today;
  let exif = null;
  try {
    exif = exifDate(new DataView(await file.slice(0, 256 * 1024).arrayBuffer()));
  } catch {
    exif = null; // a damaged header is no date; the scan says what is wrong with the file
  }
  if (usable(exif)) return { date: exif, source: "exif" };
  const modified = file.lastModified ? isoDay(new Date(file.lastModified)) : null;
  return usable(modified) ? { date: modified, source: "file" } : null;
}

/** DateTimeOriginal (else DateTime) of the EXIF block in a JPEG's or PNG's first bytes, as YYYY-MM-DD. */
export function exifDate(view) {
  const tiff = tiffStart(view);
  return tiff === null ? null : tiffDate(view, tiff);
}

/** Where the TIFF header of the EXIF block starts, or null. */
function tiffStart(view) {
  if (view.byteLength >= 4 && view.getUint16(0) === 0xffd8) { // JPEG: segments up to the image data
    let at = 2;
    while (at + 4 <= view.byteLength && view.getUint8(at) === 0xff) {
      const marker = view.getUint8(at + 1), length = view.getUint16(at + 2);
      if (marker === 0xda) return null; // start of scan: no EXIF before it
      if (marker === 0xe1 && at + 10 <= view.byteLength && view.getUint32(at + 4) === 0x45786966) return at + 10; // "Exif\0\0"
      at += 2 + length;
    }
    return null;
  }
  if (view.byteLength >= 8 && view.getUint32(0) === 0x89504e47) { // PNG: chunks up to the image data
    let at = 8;
    while (at + 8 <= view.byteLength) {
      const length = view.getUint32(at), type = view.getUint32(at + 4);
      if (type === 0x65584966) return at + 8; // "eXIf"
      if (type === 0x49444154) return null;   // "IDAT"
      at += 12 + length;
    }
  }
  return null;
}

function tiffDate(view, start) {
  const little = view.getUint16(start) === 0x4949;
  const u16 = (at) => view.getUint16(start + at, little), u32 = (at) => view.getUint32(start + at, little);
  const inside = (at, n) => start + at + n <= view.byteLength;
  /** The ASCII value of `tag` in the IFD at `ifd`, or the offset of a pointer tag. */
  function entry(ifd, tag) {
    if (!inside(ifd, 2)) return null;
    const count = u16(ifd);
    for (let i = 0; i < count && inside(ifd + 2 + 12 * i, 12); i++) {
      const at = ifd + 2 + 12 * i;
      if (u16(at) === tag) return { type: u16(at + 2), count: u32(at + 4), value: u32(at + 8) };
    }
    return null;
  }
  function day(found) {
    if (!found || found.type !== 2 || found.count < 10 || !inside(found.value, 10)) return null;
    const text = String.fromCharCode(...new Uint8Array(view.buffer, view.byteOffset + start + found.value, 10));
    const match = /^(\d{4}):(\d{2}):(\d{2})$/.exec(text);
    return match ? `${match[1]}-${match[2]}-${match[3]}` : null;
  }
  if (!inside(0, 8)) return null;
  const ifd0 = u32(4);
  const exifIFD = entry(ifd0, 0x8769);
  return (exifIFD && day(entry(exifIFD.value, 0x9003))) || day(entry(ifd0, 0x0132));
}
