// Named locks inside this process: one queue per name, first come first served. A waiter holds nothing
// while it waits (no connection: on PostgreSQL only the one whose turn it is asks the database for the
// lock across instances), and waits at most its bound.
import { serviceBusy } from "../errors";

/** Releases a turn: the next waiter of the name gets it. */
export type Release = () => void;

export class LocalLocks {
  /** The waiters of every name held now; a name is held while it has an entry. */
  private readonly waiters = new Map<string, ((release: Release) => void)[]>();

  /**
   * This process's turn at `name`: at once when nobody holds it; otherwise null when `waitMs` is 0,
   * or after the holders before it, within `waitMs` (then 503 SERVICE_BUSY, and it leaves the queue).
   */
  private take(name: string, waitMs: number): Promise<Release | null> {
    const queue = this.waiters.get(name);
    if (!queue) {
      this.waiters.set(name, []);
      return Promise.resolve(this.releaser(name));
    }
    if (waitMs <= 0) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      const wake = (release: Release) => {
        clearTimeout(timer);
        resolve(release);
      };
      const timer = setTimeout(() => {
        queue.splice(queue.indexOf(wake), 1);
        reject(waitedTooLong(name, waitMs));
      }, waitMs);
      queue.push(wake);
    });
  }

  /** Runs `fn` on this process's turn at `name` (see take); null, without running it, when waitMs is 0 and it is held. */
  async exclusive<T>(name: string, waitMs: number, fn: () => Promise<T>): Promise<T | null> {
    const release = await this.take(name, waitMs);
    if (!release) return null;
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private releaser(name: string): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.get(name)!.shift();
      if (next) next(this.releaser(name));
      else this.waiters.delete(name);
    };
  }
}

/** A named lock not taken within `waitMs` (here, or across instances on PostgreSQL). */
export const waitedTooLong = (name: string, waitMs: number) => serviceBusy(`waited ${waitMs / 1000} s for its turn at ${name}`);
