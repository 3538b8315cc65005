// Group commit: write ops that arrive in the same event-loop turn share one transaction and one
// fsync. Each op runs in its own savepoint, so a failing op rolls back only itself; every caller is
// answered only after the shared COMMIT returned, so a 2xx always means "on disk".
import type { Database, Statement } from "bun:sqlite";

type Pending = {
  op: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

const MAX_GROUP = 512;

export class GroupCommitWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private opCallbacks: (() => void)[] | null = null;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => {};

  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollbackTo: Statement;

  constructor(private readonly sqlite: Database) {
    this.savepoint = sqlite.prepare("SAVEPOINT op");
    this.release = sqlite.prepare("RELEASE op");
    this.rollbackTo = sqlite.prepare("ROLLBACK TO op");
  }

  submit<T>(op: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ op, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        this.idle = new Promise((done) => (this.markIdle = done));
        setImmediate(() => this.flush());
      }
    });
  }

  onCommit(fn: () => void): void {
    if (!this.opCallbacks) throw new Error("onCommit called outside a write op");
    this.opCallbacks.push(fn);
  }

  drain(): Promise<void> {
    return this.scheduled ? this.idle : Promise.resolve();
  }

  private flush(): void {
    const group = this.queue.splice(0, MAX_GROUP);
    const outcomes: { ok: boolean; value: unknown }[] = [];
    const callbacks: (() => void)[] = [];
    try {
      this.sqlite.exec("BEGIN IMMEDIATE");
      for (const pending of group) {
        this.savepoint.run();
        this.opCallbacks = [];
        try {
          const value = pending.op();
          this.release.run();
          callbacks.push(...this.opCallbacks);
          outcomes.push({ ok: true, value });
        } catch (error) {
          this.rollbackTo.run();
          this.release.run();
          outcomes.push({ ok: false, value: error });
        } finally {
          this.opCallbacks = null;
        }
      }
      this.sqlite.exec("COMMIT");
    } catch (error) {
      if (this.sqlite.inTransaction) this.sqlite.exec("ROLLBACK");
      for (const pending of group) pending.reject(error);
      this.next();
      return;
    }
    group.forEach((pending, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.value);
    });
    for (const callback of callbacks) {
      try {
        callback();
      } catch (error) {
        console.error(JSON.stringify({ level: "error", msg: "after-commit callback failed", error: String(error) }));
      }
    }
    this.next();
  }

  private next(): void {
    if (this.queue.length > 0) {
      setImmediate(() => this.flush());
    } else {
      this.scheduled = false;
      this.markIdle();
    }
  }
}
