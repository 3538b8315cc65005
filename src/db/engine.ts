// What the rest of the service needs from a database engine; src/db/sqlite.ts and src/db/postgres.ts
// are the two, and only src/db knows which one runs.
import type { Op } from "./query";

export interface Engine {
  readonly kind: "sqlite" | "postgres";
  /** Runs a write op as one transaction; resolves after it committed. Retried as a whole if the engine must. */
  write<T>(op: () => Op<T>): Promise<T>;
  /** Runs a read (committed state only); `snapshot`: all its statements see one moment (PostgreSQL). */
  read<T>(query: Op<T>, snapshot?: boolean): Promise<T>;
  /**
   * Runs `fn` while holding the named lock, across every instance that shares the database (one
   * process on SQLite). Waits at most `waitMs` for it, holding no connection meanwhile; past that,
   * 503 SERVICE_BUSY. With `waitMs` 0, null at once when another holds it.
   */
  exclusive<T>(name: string, waitMs: number, fn: () => Promise<T>): Promise<T | null>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
