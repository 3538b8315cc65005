// One page of a list, newest first (or, for a queue, oldest first). With `after` (the key of the last item of the previous page) the
// page starts with the item that follows it: an index seek instead of OFFSET's walk over every
// skipped row, so the thousandth page costs what the first does, and items added meanwhile neither
// repeat nor shift the pages that follow.
import { invalid } from "../errors";
import { all, get, type Op } from "./query";
import { columns as columnsOf, type Row as RowOf } from "./table";
import type { Table } from "./tables";

/** What a list route was asked for: `limit` items, after skipping `offset`, following the item `after`. */
export type PageWindow = { limit: number; offset: number; after?: string };

export type ListSql = {
  /** `SELECT … FROM …`: the statement up to its WHERE. */
  select: string;
  where: string;
  params: unknown[];
  /** The sort keys, each descending (ascending with `oldestFirst`); the last one is unique. */
  order: string[];
  oldestFirst?: boolean;
  /** The statement giving the sort keys (in `order`'s order) of the item `after` names, or no row when it is not one of the caller's (another agent's id must answer like an unknown one). */
  position: (after: string) => [sql: string, ...params: unknown[]];
};

/** The rows of one page, and whether more follow it (one row more is read to know). */
export function* pageRows<Row>(list: ListSql, window: PageWindow): Op<{ rows: Row[]; more: boolean }> {
  let where = list.where;
  const params = [...list.params];
  if (window.after !== undefined) {
    const [sql, ...positionParams] = list.position(window.after);
    const position = yield* get<Record<string, unknown>>(sql, ...positionParams);
    if (!position) throw invalid("after: no such item in this list (pass the id of the last item of the previous page)");
    const keys = Object.values(position);
    where = `(${where}) AND (${list.order.join(", ")}) ${list.oldestFirst ? ">" : "<"} (${keys.map(() => "?").join(", ")})`;
    params.push(...keys);
  }
  const order = list.order.map((key) => `${key} ${list.oldestFirst ? "ASC" : "DESC"}`).join(", ");
  const rows = yield* all<Row>(`${list.select} WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`, ...params, window.limit + 1, window.offset);
  return { rows: rows.slice(0, window.limit), more: rows.length > window.limit };
}

/** A condition of a list's WHERE with its parameters. */
export type Condition = { where: string; params: unknown[] };

/**
 * A LIKE pattern (with `ESCAPE '\\'`) matching any text that contains `text`, for a column compared
 * lower-cased: its wildcards escaped, so a search for "50%" finds "50%" and not "500".
 */
export const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * What a list's query chose, as a `narrow` condition: each `column = ?` whose value was given, joined
 * by AND; undefined when none was (`{ "status = ?": query.status, "recipient = ?": query.to }`).
 */
export function narrowing(chosen: Record<string, unknown>): Condition | undefined {
  const given = Object.entries(chosen).filter(([, value]) => value !== undefined);
  return given.length === 0 ? undefined : { where: given.map(([where]) => where).join(" AND "), params: given.map(([, value]) => value) };
}

type ListFrom = {
  scope: Condition;
  narrow?: Condition;
  /** The count over all pages where the feature keeps it (a COUNT(*) grows with the list). */
  total?: () => Op<number>;
};
type Page<Item> = Op<{ total: number; more: boolean; data: Item[] }>;

/**
 * A page of a table listed by (created_at, id), newest first, with the count over all pages.
 *
 * `scope` is what makes the list the caller's: its own rows, or what a public list shows everyone
 * (active services, open offers). The item `after` names is looked up within it, so another agent's
 * id answers exactly like an unknown one. `narrow` is what the caller's query chose among those rows
 * (unreadOnly, status, role, currency, category): the cursor is not held to it, so a reader who marks
 * a message read, or a negotiation that moves on, does not lose the reader's place. `table` is a
 * declared table (its columns and row type come with it) or a name with its `columns` list.
 */
export function newestFirst<T extends Table, Item>(from: ListFrom & { table: T }, window: PageWindow, view: (row: RowOf<T>) => Item): Page<Item>;
export function newestFirst<Row, Item>(from: ListFrom & { table: string; columns: string }, window: PageWindow, view: (row: Row) => Item): Page<Item>;
export function newestFirst<Item>(from: ListFrom & { table: string | Table; columns?: string }, window: PageWindow, view: (row: any) => Item): Page<Item> {
  return byCreation(from, window, view, false);
}

/** The same, oldest first: a queue, whose longest-waiting items matter most (withdrawals stuck on chain). */
export function oldestFirst<T extends Table, Item>(from: ListFrom & { table: T }, window: PageWindow, view: (row: RowOf<T>) => Item): Page<Item> {
  return byCreation(from, window, view, true);
}

function* byCreation<Item>(from: ListFrom & { table: string | Table; columns?: string }, window: PageWindow, view: (row: any) => Item, oldestFirst: boolean): Page<Item> {
  const { scope, narrow } = from;
  const table = typeof from.table === "string" ? from.table : from.table.name;
  const columns = typeof from.table === "string" ? from.columns! : columnsOf(from.table);
  const where = narrow ? `(${scope.where}) AND (${narrow.where})` : scope.where;
  const params = narrow ? [...scope.params, ...narrow.params] : scope.params;
  const total = from.total
    ? yield* from.total()
    : Number((yield* get<{ n: bigint }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, ...params))!.n);
  const { rows, more } = yield* pageRows<unknown>(
    {
      select: `SELECT ${columns} FROM ${table}`,
      where,
      params,
      order: ["created_at", "id"],
      oldestFirst,
      position: (after) => [`SELECT created_at, id FROM ${table} WHERE id = ? AND (${scope.where})`, after, ...scope.params],
    },
    window,
  );
  return { total, more, data: rows.map(view) };
}
