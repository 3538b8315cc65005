// One declaration per table, for both engines. drizzle has no dialect-neutral schema, so a table is
// declared once here and becomes a sqlite-core and a pg-core table, from which drizzle-kit writes each
// engine's migrations (src/db/schema.kit.ts). Columns are named after their
// property, in snake_case. Integers (money in minor units, counters, milliseconds) are 64-bit on both.
import { sql } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import type { JsonText } from "../json";

type Kind = "text" | "integer" | "serial";
/** A number default, or a string of raw SQL. */
type Default = number | string;
type Flags = { notNull?: boolean; primaryKey?: boolean; unique?: boolean; default?: Default; references?: () => AnyColumn };

const defaultOf = (value: Default) => (typeof value === "number" ? value : sql.raw(value));
/** The drizzle column a reference points at, in the given dialect's table. */
const target = (reference: () => AnyColumn, dialect: "sqlite" | "pg") => {
  const column = reference();
  const owner = column.table!;
  return owner[dialect][Object.keys(owner.columns).find((key) => owner.columns[key] === column)!];
};

/**
 * A column. Its type parameters exist only for the type checker (src/db/table.ts derives a table's row
 * from them): the value the engines return (`string`, or a union of strings the feature declares;
 * `bigint` for every integer), whether it is NOT NULL, and whether it has a default.
 */
export class Column<Value = unknown, NotNull extends boolean = boolean, HasDefault extends boolean = boolean> {
  declare readonly value: Value;
  declare readonly notNullable: NotNull;
  declare readonly hasDefault: HasDefault;
  name = "";
  table: AnyTable | null = null;
  constructor(
    readonly kind: Kind,
    readonly flags: Flags = {},
  ) {}
  private with<N extends boolean, O extends boolean>(flags: Flags): Column<Value, N, O> {
    return new Column(this.kind, { ...this.flags, ...flags });
  }
  notNull = () => this.with<true, HasDefault>({ notNull: true });
  primaryKey = () => this.with<true, HasDefault>({ primaryKey: true });
  unique = () => this.with<NotNull, HasDefault>({ unique: true });
  default = (value: Default) => this.with<NotNull, true>({ default: value });
  /** A reference to `target`: its values are of the target's type (an agent's id, a loan's). */
  references = <V extends Value>(target: () => Column<V, boolean, boolean>) => this.with<NotNull, HasDefault>({ references: target }) as unknown as Column<V, NotNull, HasDefault>;

  sqlite(): any {
    let column: any = this.kind === "text" ? sqlite.text(this.name) : sqlite.integer(this.name);
    if (this.kind === "serial") return column.primaryKey({ autoIncrement: true });
    if (this.flags.notNull) column = column.notNull();
    if (this.flags.primaryKey) column = column.primaryKey();
    if (this.flags.unique) column = column.unique();
    if (this.flags.default !== undefined) column = column.default(defaultOf(this.flags.default));
    if (this.flags.references) column = column.references(() => target(this.flags.references!, "sqlite"));
    return column;
  }

  pg(): any {
    if (this.kind === "serial") return pg.bigserial(this.name, { mode: "bigint" }).primaryKey();
    let column: any = this.kind === "text" ? pg.text(this.name) : pg.bigint(this.name, { mode: "bigint" });
    if (this.flags.notNull) column = column.notNull();
    if (this.flags.primaryKey) column = column.primaryKey();
    if (this.flags.unique) column = column.unique();
    if (this.flags.default !== undefined) column = column.default(defaultOf(this.flags.default));
    if (this.flags.references) column = column.references(() => target(this.flags.references!, "pg"));
    return column;
  }
}

export type AnyColumn = Column<unknown, boolean, boolean>;

/** Text; `Value` narrows what the feature stores in it (a status, a currency): a type, not a check. */
export const text = <Value extends string = string>() => new Column<Value, false, false>("text");
/** Text holding JSON of type `T`: written with jsonText, read with readJson (src/json.ts). */
export const json = <T>() => new Column<JsonText<T>, false, false>("text");
/** A 64-bit integer: money in minor units, counters, milliseconds since the epoch. Read as bigint. */
export const integer = () => new Column<bigint, false, false>("integer");
/** An auto-incrementing 64-bit primary key (rows in insertion order). */
export const serial = () => new Column<bigint, true, true>("serial");

type Extra = { kind: "index" | "unique" | "primary"; name: string; columns: AnyColumn[]; condition?: string };
export const index = (name: string) => ({ on: (...columns: AnyColumn[]) => extra("index", name, columns) });
export const uniqueIndex = (name: string) => ({ on: (...columns: AnyColumn[]) => extra("unique", name, columns) });
export const primaryKey = (...columns: AnyColumn[]): Extra => ({ kind: "primary", name: "", columns });

function extra(kind: "index" | "unique", name: string, columns: AnyColumn[]) {
  const value: Extra & { where: (condition: string) => Extra } = { kind, name, columns, where: (condition) => ({ kind, name, columns, condition }) };
  return value;
}

const snake = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** A declared table whose columns are `C` (src/db/table.ts reads and writes it). */
export type Table<C extends Record<string, AnyColumn> = Record<string, AnyColumn>> = { name: string; columns: C; sqlite: any; pg: any };
export type AnyTable = Table;

const declared = new WeakSet<object>();
/** Whether `value` is a table declared with table() (drizzle-kit's schema module looks for them). */
export const isTable = (value: unknown): value is AnyTable => typeof value === "object" && value !== null && declared.has(value);

export function table<C extends Record<string, AnyColumn>>(name: string, definitions: C, extras: (columns: C) => Extra[] = () => []): Table<C> {
  const columns = Object.fromEntries(Object.entries(definitions).map(([key, definition]) => {
    const column = new Column(definition.kind, definition.flags);
    column.name = snake(key);
    return [key, column];
  })) as C;
  const result: Table<C> = { name, columns, sqlite: null, pg: null };
  for (const column of Object.values(columns)) column.table = result;
  const list = extras(columns);
  const dialect = (builders: "sqlite" | "pg") => {
    const make = builders === "sqlite" ? sqlite.sqliteTable : pg.pgTable;
    const builder: Record<Extra["kind"], (...args: any[]) => any> =
      builders === "sqlite" ? { index: sqlite.index, unique: sqlite.uniqueIndex, primary: sqlite.primaryKey } : { index: pg.index, unique: pg.uniqueIndex, primary: pg.primaryKey };
    return (make as any)(
      name,
      Object.fromEntries(Object.entries(columns).map(([key, column]) => [key, builders === "sqlite" ? column.sqlite() : column.pg()])),
      (built: Record<string, any>) =>
        list.map((item) => {
          const cols = item.columns.map((column) => built[Object.keys(columns).find((key) => columns[key] === column)!]);
          if (item.kind === "primary") return builder.primary({ columns: cols });
          const made = builder[item.kind](item.name).on(...cols);
          return item.condition ? made.where(sql.raw(item.condition)) : made;
        }),
    );
  };
  result.sqlite = dialect("sqlite");
  result.pg = dialect("pg");
  declared.add(result);
  return result;
}
