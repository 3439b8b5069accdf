// What a lane's page keeps on the phone, in IndexedDB, to open and to
// score with no network: the lane's last board (and the seat it was
// seen from), and the outbox, the balls entered offline and not yet
// sent, per lane and per seat, in the order they were entered. Both
// outlive a reload and a closed tab. Storage that is off or full loses
// only what it cannot keep: the page goes on with its copy in memory.

const dbName = "tenpin";

let opened = null;

function db() {
  if (!opened) {
    opened = new Promise((resolve, reject) => {
      const req = indexedDB.open(dbName, 1);
      req.onupgradeneeded = () => {
        req.result.createObjectStore("lanes", { keyPath: "lane" });
        req.result.createObjectStore("outbox", { keyPath: ["lane", "seat"] });
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }
  return opened;
}

// run does one request on store and resolves with its result.
async function run(store, mode, op) {
  const tx = (await db()).transaction(store, mode);
  const req = op(tx.objectStore(store));
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve(req.result);
    tx.onerror = tx.onabort = () => reject(tx.error);
  });
}

// loadLane is what the phone kept of lane id: { board, seat, at }, or
// null.
export async function loadLane(id) {
  try { return (await run("lanes", "readonly", (s) => s.get(id))) || null; } catch { return null; }
}

// saveLane keeps the lane's last board, the seat it was seen from and
// when it came.
export async function saveLane(id, board, seat, at) {
  try { await run("lanes", "readwrite", (s) => s.put({ lane: id, board, seat, at })); } catch { /* kept in memory only */ }
}

// loadOutbox is the balls waiting to be sent from seat on lane id.
export async function loadOutbox(id, seat) {
  try {
    const rec = await run("outbox", "readonly", (s) => s.get([id, seat]));
    return rec ? rec.balls : [];
  } catch {
    return [];
  }
}

// saveOutbox keeps the balls waiting from seat on lane id (none: the
// record goes). It reports whether they are kept.
export async function saveOutbox(id, seat, balls) {
  try {
    await run("outbox", "readwrite", (s) => balls.length ? s.put({ lane: id, seat, balls }) : s.delete([id, seat]));
    return true;
  } catch {
    return false;
  }
}
