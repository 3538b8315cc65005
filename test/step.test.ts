// How an op's statements are driven where each is a round trip (PostgreSQL, src/db/query.ts stepAsync):
// a runLater write is sent at once but waited for with the next statement the op waits for (or at the
// end), in order; its failure fails the whole op and is never thrown into the op, which could catch it
// where it does not belong.
import { describe, expect, test } from "bun:test";
import { Cache } from "../src/db/cache";
import { get, runLater, stepAsync, type Op, type Statement } from "../src/db/query";

/** A connection that answers in the order it was asked, recording when each statement was sent and settled. */
function connection(fail?: string) {
  const log: string[] = [];
  const execute = (statement: Statement): Promise<unknown> => {
    log.push(`send ${statement.sql}`);
    return Bun.sleep(1).then(() => {
      log.push(`done ${statement.sql}`);
      if (statement.sql === fail) throw Object.assign(new Error(`${fail} failed`), { errno: "23505" });
      return statement.mode === "get" ? { n: 1n } : 1;
    });
  };
  return { log, execute };
}

const drive = <T>(op: Op<T>, execute: (statement: Statement) => Promise<unknown>) => stepAsync(op, execute, [], new Cache(false).view());

describe("runLater on a connection of round trips", () => {
  test("later writes go out before the next read and are all waited for, in order", async () => {
    const { log, execute } = connection();
    const value = await drive(
      (function* () {
        yield* runLater("W1");
        yield* runLater("W2");
        const row = yield* get<{ n: bigint }>("R");
        yield* runLater("W3");
        return row;
      })(),
      execute,
    );
    expect(value).toEqual({ n: 1n });
    // W1, W2 and R were all sent before any answer came back: one round trip for the three.
    expect(log.slice(0, 3)).toEqual(["send W1", "send W2", "send R"]);
    expect(log.filter((line) => line.startsWith("done"))).toEqual(["done W1", "done W2", "done R", "done W3"]);
  });

  test("a failed later write fails the op with its own error, even where the op catches errors", async () => {
    const { execute } = connection("W1");
    let caught: unknown = null;
    const op = (function* () {
      yield* runLater("W1");
      try {
        yield* get("R");
      } catch (error) {
        caught = error; // must not be W1's failure: W1 is not R's to answer for
      }
      return "went on";
    })();
    const error = await drive(op, execute).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ message: "W1 failed", errno: "23505" });
    expect(caught).toBeNull();
  });

  test("a later write that fails after the op's last statement still fails the op", async () => {
    const { execute } = connection("W2");
    const error = await drive(
      (function* () {
        yield* get("R");
        yield* runLater("W2");
        return "done";
      })(),
      execute,
    ).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ message: "W2 failed" });
  });
});
