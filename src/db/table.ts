// Reading and writing a feature's rows from its table declaration (its schema.ts), so a column is
// spelled once: the row type, the column list (`created_at AS createdAt`), the INSERT and the UPDATE
// all come from the table. Rows are what the engines return: camelCase fields, integers as bigint,
// null where the column allows it; nothing maps them. SQL a feature writes itself (the ledger, pages,
// reports, a conditional UPDATE) goes through the same steps (get/all/run) and may use columns().
import { FOR_UPDATE, get, all, runLater, type Op } from "./query";
import type { AnyColumn, Column, Table } from "./tables";

type ColumnsOf<T extends Table> = T["columns"];
type ValueOf<C> = C extends Column<infer Value, infer NotNull, boolean> ? (NotNull extends true ? Value : Value | null) : never;
/** What a write may give an integer column: a bigint, or a number (milliseconds, days). */
type Writable<V> = V extends bigint ? bigint | number : V;
type OptionalKeys<C extends Record<string, AnyColumn>> = { [K in keyof C]: C[K] extends Column<unknown, infer NotNull, infer HasDefault> ? (NotNull extends true ? (HasDefault extends true ? K : never) : K) : never }[keyof C];

/** A row of `T` as the engines return it. */
export type Row<T extends Table> = { [K in keyof ColumnsOf<T>]: ValueOf<ColumnsOf<T>[K]> };

/** What an insert gives: every NOT NULL column without a default; the others may be left out. */
export type NewRow<T extends Table> = { [K in Exclude<keyof ColumnsOf<T>, OptionalKeys<ColumnsOf<T>>>]: Writable<ValueOf<ColumnsOf<T>[K]>> } & {
  [K in OptionalKeys<ColumnsOf<T>>]?: Writable<ValueOf<ColumnsOf<T>[K]>>;
};

/** What an update changes: any columns; the ones left out (or undefined) are not written. */
export type Changes<T extends Table> = { [K in keyof ColumnsOf<T>]?: Writable<ValueOf<ColumnsOf<T>[K]>> };

/** Texts of statements made once per table: its column list, and each INSERT/UPDATE/find the code makes. */
const statements = new WeakMap<Table, Map<string, string>>();

/** The text `signature` names for `table`, made by `make` the first time. */
function textOf(table: Table, signature: string, make: () => string): string {
  let made = statements.get(table);
  if (made === undefined) statements.set(table, (made = new Map()));
  let sql = made.get(signature);
  if (sql === undefined) made.set(signature, (sql = make()));
  return sql;
}

/** Column names that are keywords SQLite refuses bare (x402_payments."transaction"): written quoted. */
const KEYWORDS = new Set(["transaction"]);
const sqlName = (name: string) => (KEYWORDS.has(name) ? `"${name}"` : name);

/** The SELECT list of every column of `table`, each as its camelCase field: `id, lender_id AS lenderId, …`. */
export function columns(table: Table): string {
  return textOf(table, "columns", () =>
    Object.entries(table.columns)
      .map(([key, column]) => (column.name === key ? sqlName(key) : `${sqlName(column.name)} AS ${key}`))
      .join(", "),
  );
}

/**
 * The statement `write` makes of the column names of the given fields (undefined ones left out), with
 * their values. Its text is made once per table, kind and list of fields: the payment path writes the
 * same text each time, whose prepared statement the engine finds without building it again.
 */
function statement(table: Table, kind: string, values: Record<string, unknown>, write: (names: string[]) => string): [sql: string, params: unknown[]] {
  const keys: string[] = [];
  const params: unknown[] = [];
  for (const key in values) {
    if (!table.columns[key]) throw new Error(`${table.name} has no column ${key}`);
    const value = values[key];
    if (value === undefined) continue;
    keys.push(key);
    params.push(value);
  }
  return [textOf(table, `${kind} ${keys.join()}`, () => write(keys.map((key) => sqlName(table.columns[key]!.name)))), params];
}

/** The row with this id, or null. `lock`: in a write op that changes it from what it read (FOR_UPDATE). */
/** The type of `T`'s id column: an AgentId for agents, a LoanId for loans (src/ids.ts), a string where no kind is declared. */
type IdOf<T extends Table> = "id" extends keyof Row<T> ? Row<T>["id"] : string;

export function find<T extends Table>(table: T, id: IdOf<T>, lock = false): Op<Row<T> | null> {
  const sql = textOf(table, lock ? "find locked" : "find", () => `SELECT ${columns(table)} FROM ${table.name} WHERE id = ? ${lock ? FOR_UPDATE : ""}`);
  return get<Row<T>>(sql, id);
}

/** The rows `where` picks (the text after WHERE: a condition, and ORDER BY, LIMIT or FOR_UPDATE if wanted). */
export function select<T extends Table>(table: T, where: string, ...params: unknown[]): Op<Row<T>[]> {
  return all<Row<T>>(`SELECT ${columns(table)} FROM ${table.name} WHERE ${where}`, ...params);
}

const insertInto = (table: Table, names: string[]) => `INSERT INTO ${table.name} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`;

/** Inserts a row; answers it as stored (defaults filled in, integers as bigint). */
export function* insert<T extends Table>(table: T, row: NewRow<T>): Op<Row<T>> {
  const [sql, params] = statement(table, "insert", row, (names) => `${insertInto(table, names)} RETURNING ${columns(table)}`);
  return (yield* get<Row<T>>(sql, ...params))!;
}

/**
 * Inserts a row unless one with the same unique `key` is there (ON CONFLICT DO NOTHING: a claim that
 * only one op may make); answers it as stored, or null when the key was taken.
 */
export function* insertNew<T extends Table>(table: T, row: NewRow<T>, key: (keyof ColumnsOf<T> & string)[]): Op<Row<T> | null> {
  const conflict = key.map((field) => sqlName(table.columns[field]!.name)).join(", ");
  const [sql, params] = statement(table, `insert new ${conflict}`, row, (names) => `${insertInto(table, names)} ON CONFLICT (${conflict}) DO NOTHING RETURNING ${columns(table)}`);
  return yield* get<Row<T>>(sql, ...params);
}

/**
 * Inserts a row and answers nothing: for the hot paths (a payment, a message, its notice, its
 * Idempotency-Key), whose callers hold every value already. RETURNING costs SQLite a buffered copy of
 * the row and Bun an object of it, about 4 µs a row; a payment inserts two to four rows. Sent with
 * runLater: on PostgreSQL it travels with the op's next statement.
 */
export function insertOnly<T extends Table>(table: T, row: NewRow<T>): Op<void> {
  const [sql, params] = statement(table, "insert only", row, (names) => insertInto(table, names));
  return runLater(sql, ...params);
}

/**
 * Writes only the columns in `changes` of the row with this id; answers the row as stored after it.
 * The row must exist (an op updates what it has read, locked): a missing one is a bug and throws.
 */
export function* update<T extends Table>(table: T, id: string, changes: Changes<T>): Op<Row<T>> {
  const [sql, params] = statement(table, "update", changes, (names) => `UPDATE ${table.name} SET ${names.map((name) => `${name} = ?`).join(", ")} WHERE id = ? RETURNING ${columns(table)}`);
  if (params.length === 0) throw new Error(`an update of ${table.name} with nothing to change`);
  const row = yield* get<Row<T>>(sql, ...params, id);
  if (!row) throw new Error(`${table.name} ${id} is not there to update`);
  return row;
}
