// A read op on a read-only connection of its own to the SQLite file, in one read transaction (one
// snapshot; WAL lets the service keep writing meanwhile). For a worker thread that reads much of the
// database (the periodic ledger check), so that the service's own connection and event loop are not
// held for the seconds it takes.
import { Database } from "bun:sqlite";
import { Cache } from "./cache";
import { stepSync, type Op, type Statement } from "./query";

export function readSnapshot<T>(path: string, query: Op<T>): T {
  const db = new Database(path, { readonly: true, safeIntegers: true, strict: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("BEGIN");
    const execute = (statement: Statement): unknown => {
      if (statement.mode !== "all" && statement.mode !== "get") throw new Error(`a snapshot only reads: ${statement.sql}`);
      const prepared = db.prepare(statement.sql);
      return statement.mode === "all" ? prepared.all(...(statement.params as never[])) : prepared.get(...(statement.params as never[]));
    };
    return stepSync(query, execute, [], new Cache(false).readView());
  } finally {
    db.close();
  }
}
