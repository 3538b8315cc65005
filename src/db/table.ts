// Reading and writing a feature's rows from its table declaration (its schema.ts), so a column is
// spelled once: the row type, the column list (`created_at AS createdAt`), the INSERT and the UPDATE
// all come from the table. Rows are what the engines return: camelCase fields, integers as bigint,
// null where the column allows it; nothing maps them. SQL a feature writes itself (the ledger, pages,
// reports, a conditional UPDATE) goes through the same steps (get/all/run) and may use columns().
import { FOR_UPDATE, get, all, type Query } from "./query";
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

const lists = new WeakMap<Table, string>();

/** Column names that are keywords SQLite refuses bare (x402_payments."transaction"): written quoted. */
const KEYWORDS = new Set(["transaction"]);
const sqlName = (name: string) => (KEYWORDS.has(name) ? `"${name}"` : name);

/** The SELECT list of every column of `table`, each as its camelCase field: `id, lender_id AS lenderId, …`. */
export function columns(table: Table): string {
  let list = lists.get(table);
  if (list === undefined) {
    list = Object.entries(table.columns)
      .map(([key, column]) => (column.name === key ? sqlName(key) : `${sqlName(column.name)} AS ${key}`))
      .join(", ");
    lists.set(table, list);
  }
  return list;
}

/**
 * The statements the layer writes for a table, by what they are and the fields they name: each text is
 * made once (building an INSERT of 14 columns cost ~4 µs a call), and the same text is the same string,
 * which the engine's statement cache finds without hashing it again. Fields are the table's own columns,
 * so the texts of a table are as many as the ways the code calls it.
 */
const texts = new WeakMap<Table, Map<string, string>>();
function text(table: Table, key: string, make: () => string): string {
  let made = texts.get(table);
  if (made === undefined) texts.set(table, (made = new Map()));
  let sql = made.get(key);
  if (sql === undefined) made.set(key, (sql = make()));
  return sql;
}

/** The given fields that are columns of `table` (undefined ones left out), and their values. */
function given(table: Table, values: Record<string, unknown>): { fields: string[]; params: unknown[] } {
  const fields: string[] = [];
  const params: unknown[] = [];
  for (const field of Object.keys(values)) {
    if (!table.columns[field]) throw new Error(`${table.name} has no column ${field}`);
    const value = values[field];
    if (value === undefined) continue;
    fields.push(field);
    params.push(value);
  }
  return { fields, params };
}

const names = (table: Table, fields: string[]) => fields.map((field) => sqlName(table.columns[field]!.name));

/** The INSERT of these fields, up to its RETURNING. */
const insertion = (table: Table, fields: string[]) =>
  `INSERT INTO ${table.name} (${names(table, fields).join(", ")}) VALUES (${fields.map(() => "?").join(", ")})`;

/** The row with this id, or null. `lock`: in a write op that changes it from what it read (FOR_UPDATE). */
export function find<T extends Table>(table: T, id: string, lock = false): Query<Row<T> | null> {
  const sql = text(table, lock ? "find locked" : "find", () => `SELECT ${columns(table)} FROM ${table.name} WHERE id = ? ${lock ? FOR_UPDATE : ""}`);
  return get<Row<T>>(sql, id);
}

/** The rows `where` picks (the text after WHERE: a condition, and ORDER BY, LIMIT or FOR_UPDATE if wanted). */
export function select<T extends Table>(table: T, where: string, ...params: unknown[]): Query<Row<T>[]> {
  return all<Row<T>>(`SELECT ${columns(table)} FROM ${table.name} WHERE ${where}`, ...params);
}

/** Inserts a row; answers it as stored (defaults filled in, integers as bigint). */
export function* insert<T extends Table>(table: T, row: NewRow<T>): Query<Row<T>> {
  const { fields, params } = given(table, row);
  const sql = text(table, `insert ${fields.join(",")}`, () => `${insertion(table, fields)} RETURNING ${columns(table)}`);
  return (yield* get<Row<T>>(sql, ...params))!;
}

/**
 * Inserts a row unless one with the same unique `key` is there (ON CONFLICT DO NOTHING: a claim that
 * only one op may make); answers it as stored, or null when the key was taken.
 */
export function* insertNew<T extends Table>(table: T, row: NewRow<T>, key: (keyof ColumnsOf<T> & string)[]): Query<Row<T> | null> {
  const { fields, params } = given(table, row);
  const sql = text(table, `insert ${fields.join(",")} unless ${key.join(",")}`, () => `${insertion(table, fields)} ON CONFLICT (${names(table, key).join(", ")}) DO NOTHING RETURNING ${columns(table)}`);
  return yield* get<Row<T>>(sql, ...params);
}

/**
 * Writes only the columns in `changes` of the row with this id; answers the row as stored after it.
 * The row must exist (an op updates what it has read, locked): a missing one is a bug and throws.
 */
export function* update<T extends Table>(table: T, id: string, changes: Changes<T>): Query<Row<T>> {
  const { fields, params } = given(table, changes);
  if (fields.length === 0) throw new Error(`an update of ${table.name} with nothing to change`);
  const sql = text(table, `update ${fields.join(",")}`, () => `UPDATE ${table.name} SET ${names(table, fields).map((name) => `${name} = ?`).join(", ")} WHERE id = ? RETURNING ${columns(table)}`);
  const row = yield* get<Row<T>>(sql, ...params, id);
  if (!row) throw new Error(`${table.name} ${id} is not there to update`);
  return row;
}
