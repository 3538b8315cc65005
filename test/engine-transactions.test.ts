// A write op is one transaction on the engine that runs the suite (SQLite, or PostgreSQL with
// TEST_DATABASE_URL), however its statements travel: on PostgreSQL BEGIN goes out with the op's first
// statement, runLater writes are waited for with the next statement the op waits for, the queries of
// together() share one round trip, and COMMIT is sent behind the op's last writes. Whatever the op sent
// commits with it or not at all, in the order the op sent it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { all, get, read, run, runLater, together, write } from "../src/db";
import { openFreshDatabase } from "./helpers/database";

let database: Awaited<ReturnType<typeof openFreshDatabase>>;

beforeAll(async () => {
  database = await openFreshDatabase("engine", 4);
  await write(function* () {
    yield* run("CREATE TABLE engine_probe (id INTEGER PRIMARY KEY, note TEXT NOT NULL)");
  });
});

afterAll(() => database.close());

const notes = () => read(all<{ id: bigint; note: string }>("SELECT id, note FROM engine_probe ORDER BY id"));
const clear = () => write(() => run("DELETE FROM engine_probe"));

describe("a write op commits all it sent, or nothing", () => {
  test("the writes sent with runLater commit with the op, the last one included", async () => {
    await clear();
    await write(function* () {
      yield* run("INSERT INTO engine_probe (id, note) VALUES (?, ?)", 1, "waited for");
      yield* runLater("INSERT INTO engine_probe (id, note) VALUES (?, ?)", 2, "later");
      yield* runLater("INSERT INTO engine_probe (id, note) VALUES (?, ?)", 3, "last, behind which COMMIT goes");
    });
    expect((await notes()).map((row) => Number(row.id))).toEqual([1, 2, 3]);
  });

  test("a runLater write that fails after the op's last statement rolls back everything before it", async () => {
    await clear();
    const failed = await write(function* () {
      yield* run("INSERT INTO engine_probe (id, note) VALUES (?, ?)", 10, "must not stay");
      yield* runLater("INSERT INTO engine_probe (id, note) VALUES (?, ?)", 11, "must not stay either");
      yield* runLater("INSERT INTO engine_probe (id, note) VALUES (?, ?)", 10, "the same key: fails");
    }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(await notes()).toEqual([]);
  });

  test("a statement the op waits for sees the writes it sent before (they run in the order sent)", async () => {
    await clear();
    const seen = await write(function* () {
      yield* runLater("INSERT INTO engine_probe (id, note) VALUES (?, ?)", 20, "sent first");
      yield* runLater("UPDATE engine_probe SET note = ? WHERE id = ?", "changed second", 20);
      return yield* get<{ note: string }>("SELECT note FROM engine_probe WHERE id = ?", 20);
    });
    expect(seen).toEqual({ note: "changed second" });
  });
});

describe("a failed op gives its connection back", () => {
  test("more failed ops than the pool has connections (4), then one that commits", async () => {
    await clear();
    const failures = [
      function* () {
        yield* run("INSERT INTO engine_probe (id, note) VALUES (?, ?)", 50, "rolled back");
        yield* runLater("INSERT INTO engine_probe (id, note) VALUES (?, ?)", 50, "the same key: fails");
      },
      function* () {
        yield* get("SELECT note FROM engine_probe WHERE id = ?", 50);
        throw new Error("refused by the op");
      },
      function* () {
        yield* get("SELECT no_such_column FROM engine_probe");
      },
    ];
    for (let round = 0; round < 4; round++) {
      for (const op of failures) expect(await write(op).catch((error: unknown) => error)).toBeInstanceOf(Error);
    }
    await write(() => run("INSERT INTO engine_probe (id, note) VALUES (?, ?)", 51, "committed"));
    expect(await notes()).toEqual([{ id: expect.anything(), note: "committed" }]);
  });
});

describe("together()", () => {
  test("answers each query's result in order, each query's own statements in its order", async () => {
    await clear();
    await write(function* () {
      yield* run("INSERT INTO engine_probe (id, note) VALUES (?, ?), (?, ?)", 30, "a", 31, "b");
    });
    const [first, missing, both] = await write(() =>
      together(
        get<{ note: string }>("SELECT note FROM engine_probe WHERE id = ?", 30),
        get<{ note: string }>("SELECT note FROM engine_probe WHERE id = ?", 99),
        (function* () {
          const a = yield* get<{ note: string }>("SELECT note FROM engine_probe WHERE id = ?", 30);
          const b = yield* get<{ note: string }>("SELECT note FROM engine_probe WHERE id = ?", 31);
          return `${a?.note}${b?.note}`;
        })(),
      ),
    );
    expect(first).toEqual({ note: "a" });
    expect(missing).toBeNull();
    expect(both).toBe("ab");
  });

  test("a query of together() that fails fails the op, and nothing of the op stays", async () => {
    await clear();
    const failed = await write(function* () {
      yield* runLater("INSERT INTO engine_probe (id, note) VALUES (?, ?)", 40, "must not stay");
      yield* together(
        get("SELECT note FROM engine_probe WHERE id = ?", 40),
        (function* () {
          throw new Error("refused by the second query");
        })(),
      );
    }).catch((error: unknown) => error);
    expect(failed).toMatchObject({ message: "refused by the second query" });
    expect(await notes()).toEqual([]);
  });
});
