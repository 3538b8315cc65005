// A worker thread that checkpoints the SQLite WAL on a connection of its own, so that most of the
// copying of pages back into the database file (and the fsyncs that go with it) happens on another
// core than the one serving requests. Its PASSIVE checkpoints never block the writer; under a steady
// load they cannot let the WAL start over (the writer keeps appending), so the writer's own, rarer
// automatic checkpoint finishes the job — by then with little left to copy.
import { Database } from "bun:sqlite";

declare const self: Worker;

const INTERVAL_MS = 100;

self.onmessage = (event: MessageEvent<{ path: string }>) => {
  const db = new Database(event.data.path);
  db.exec("PRAGMA busy_timeout = 1000");
  const checkpoint = db.query("PRAGMA wal_checkpoint(PASSIVE)");
  const timer = setInterval(() => {
    try {
      checkpoint.get();
    } catch (error) {
      postMessage({ error: String((error as Error).message ?? error) });
    }
  }, INTERVAL_MS);
  self.addEventListener("close", () => {
    clearInterval(timer);
    db.close();
  });
};
