// The scan page's cards kept on this device (IndexedDB) until they are saved or removed: a
// reload, Back from another page or a closed tab gives them back (issue 38: nothing lost by
// navigating). Each record: the screenshot itself, what the server read, the card's date and
// the player's corrections. Nothing leaves the device; a failure to keep is not the player's
// problem (private windows may refuse storage), so every call resolves.

const DB = "sentio-iv", STORE = "cards";
let opening = null;

function database() {
  opening ??= new Promise((resolve) => {
    let request;
    try {
      request = indexedDB.open(DB, 1);
    } catch {
      resolve(null);
      return;
    }
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: "id" });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => resolve(null);
    request.onblocked = () => resolve(null);
  });
  return opening;
}

/** Runs `body(store)` in a transaction; resolves to its request's result (null on any failure). */
async function withStore(mode, body) {
  const db = await database();
  if (!db) return null;
  return new Promise((resolve) => {
    try {
      const transaction = db.transaction(STORE, mode);
      const request = body(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request?.result ?? null);
      transaction.onerror = transaction.onabort = () => resolve(null);
    } catch {
      resolve(null);
    }
  });
}

/** A new card's id (no `crypto.randomUUID` on a plain-HTTP phone address: not a secure context). */
export const cardID = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

/** Keeps (or replaces) a card's record. */
export const keep = (record) => withStore("readwrite", (store) => store.put(record));

/** Forgets a card. */
export const forget = (id) => withStore("readwrite", (store) => store.delete(id));

/** Forgets every card. */
export const forgetAll = () => withStore("readwrite", (store) => store.clear());

/** Every kept card, oldest first. */
export async function kept() {
  const records = (await withStore("readonly", (store) => store.getAll())) ?? [];
  return records.sort((a, b) => a.addedAt - b.addedAt);
}
