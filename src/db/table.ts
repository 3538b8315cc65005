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

/** The given fields that are columns of `table` (undefined ones left out), as [column name, value]. */
function assignments(table: Table, values: Record<string, unknown>): [string, unknown][] {
  return Object.entries(values).flatMap(([key, value]) => {
    const column = table.columns[key];
    if (!column) throw new Error(`${table.name} has no column ${key}`);
    return value === undefined ? [] : [[sqlName(column.name), value] as [string, unknown]];
  });
}

/** The row with this id, or null. `lock`: in a write op that changes it from what it read (FOR_UPDATE). */
export function find<T extends Table>(table: T, id: string, lock = false): Query<Row<T> | null> {
  return get<Row<T>>(`SELECT ${columns(table)} FROM ${table.name} WHERE id = ? ${lock ? FOR_UPDATE : ""}`, id);
}

/** The rows `where` picks (the text after WHERE: a condition, and ORDER BY, LIMIT or FOR_UPDATE if wanted). */
export function select<T extends Table>(table: T, where: string, ...params: unknown[]): Query<Row<T>[]> {
  return all<Row<T>>(`SELECT ${columns(table)} FROM ${table.name} WHERE ${where}`, ...params);
}

/** The INSERT of the given fields, up to its RETURNING, with its parameters. */
function insertion(table: Table, row: Record<string, unknown>): [sql: string, params: unknown[]] {
  const pairs = assignments(table, row);
  const sql = `INSERT INTO ${table.name} (${pairs.map(([name]) => name).join(", ")}) VALUES (${pairs.map(() => "?").join(", ")})`;
  return [sql, pairs.map(([, value]) => value)];
}

/** Inserts a row; answers it as stored (defaults filled in, integers as bigint). */
export function* insert<T extends Table>(table: T, row: NewRow<T>): Query<Row<T>> {
  const [sql, params] = insertion(table, row);
  return (yield* get<Row<T>>(`${sql} RETURNING ${columns(table)}`, ...params))!;
}

/**
 * Inserts a row unless one with the same unique `key` is there (ON CONFLICT DO NOTHING: a claim that
 * only one op may make); answers it as stored, or null when the key was taken.
 */
export function* insertNew<T extends Table>(table: T, row: NewRow<T>, key: (keyof ColumnsOf<T> & string)[]): Query<Row<T> | null> {
  const [sql, params] = insertion(table, row);
  const conflict = key.map((field) => sqlName(table.columns[field]!.name)).join(", ");
  return yield* get<Row<T>>(`${sql} ON CONFLICT (${conflict}) DO NOTHING RETURNING ${columns(table)}`, ...params);
}

/**
 * Writes only the columns in `changes` of the row with this id; answers the row as stored after it.
 * The row must exist (an op updates what it has read, locked): a missing one is a bug and throws.
 */
export function* update<T extends Table>(table: T, id: string, changes: Changes<T>): Query<Row<T>> {
  const pairs = assignments(table, changes);
  if (pairs.length === 0) throw new Error(`an update of ${table.name} with nothing to change`);
  const sql = `UPDATE ${table.name} SET ${pairs.map(([name]) => `${name} = ?`).join(", ")} WHERE id = ? RETURNING ${columns(table)}`;
  const row = yield* get<Row<T>>(sql, ...pairs.map(([, value]) => value), id);
  if (!row) throw new Error(`${table.name} ${id} is not there to update`);
  return row;
}
