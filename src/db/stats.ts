// What the engines count as they run, for the operator's metrics (src/metrics reads it at scrape time):
// plain numbers and one observer, so that the database layer depends on no metrics library and a
// process without metrics pays one addition per commit.

/** Since the process started. `connectionsWanted`: PostgreSQL pool connections asked for right now (in use + waiting). */
export const databaseStats = { committed: 0, retried: 0, connectionsWanted: 0, poolSize: 0 };

type GroupObserver = (ops: number, seconds: number) => void;
let groupObserver: GroupObserver | null = null;

/** SQLite: `observer` is told each group commit's size (write ops) and how long the writer executed it (BEGIN to COMMIT). */
export function observeGroupCommits(observer: GroupObserver): void {
  groupObserver = observer;
}

export function groupCommitted(ops: number, seconds: number): void {
  groupObserver?.(ops, seconds);
}
