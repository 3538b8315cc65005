// JSON that comes from outside (request bodies, resource and oracle answers) is bounded in nesting
// before it is parsed: JSON.parse, JSON.stringify and every recursive walk would otherwise spend
// seconds, or the stack, on a document nested 50,000 deep. Keys an outsider chose never land on an
// object with a prototype: `__proto__` assigned to a plain object changes what the object inherits
// (or, reached as `obj.__proto__.x`, what every object inherits).

/** No request body or outside answer may nest objects/arrays deeper than this. */
export const MAX_JSON_DEPTH = 32;

export class JsonTooDeep extends Error {}

/** The deepest nesting of objects and arrays in a JSON text (brackets inside strings do not count). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92) index++; // backslash: skip the escaped character
      else if (code === 34) inString = false;
    } else if (code === 34) {
      inString = true;
    } else if (code === 123 || code === 91) {
      if (++depth > deepest) deepest = depth;
    } else if (code === 125 || code === 93) {
      depth--;
    }
  }
  return deepest;
}

/** JSON.parse behind the depth bound; throws JsonTooDeep or SyntaxError. */
export function parseJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (jsonDepth(text) > maxDepth) throw new JsonTooDeep(`JSON nested deeper than ${maxDepth} levels`);
  return JSON.parse(text);
}

declare const stored: unique symbol;
/**
 * The text of a JSON column that holds a `T` (declared once, with `json<T>()` in the table's schema).
 * It is written with `jsonText` and read back with `readJson`, so what a row holds is typed at both
 * ends instead of `JSON.parse(…) as` at each reader. Only the service writes these columns.
 */
export type JsonText<T> = string & { readonly [stored]: T };
export const jsonText = <T>(value: T): JsonText<T> => JSON.stringify(value) as JsonText<T>;
/** A JSON column's value, parsed when it is read (a row is loaded without parsing what nobody reads). */
export const readJson = <T>(text: JsonText<T>): T => JSON.parse(text) as T;

/** The keys that name or reach an object's prototype; refused wherever an outsider names keys. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Whether a key is reserved, or reaches through one as a path ("__proto__.standing",
 * "constructor[prototype]"): some code splits names at dots (the console's policy form does).
 */
export const isReservedKey = (key: string) =>
  // Every reserved key contains "proto" or "constructor": most keys are passed without being split.
  (key.includes("proto") || key.includes("constructor")) && key.split(/[.[\]]/).some((part) => RESERVED_KEYS.has(part));

/** An empty object without a prototype, for keys from outside: nothing is inherited, `__proto__` is a key like any. */
export const dictionary = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/** `record[key]` only if the record itself holds it: never a value inherited from a prototype. */
export const ownProperty = <R extends object, K extends keyof R & string>(record: R, key: K): R[K] | undefined => (Object.hasOwn(record, key) ? record[key] : undefined);

/** The dotted path of the first reserved key (isReservedKey) anywhere in a parsed value (iterative), or null. */
export function reservedKeyPath(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    for (const key of Object.keys(item)) {
      const at = Array.isArray(item) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (!Array.isArray(item) && isReservedKey(key)) return at;
      stack.push([(item as Record<string, unknown>)[key], at]);
    }
  }
  return null;
}

/** JSON with object keys sorted at every level: the same value in any key order gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    // Without a prototype, a key "__proto__" stays a key (and in the text) instead of replacing the prototype.
    const sorted = dictionary<unknown>();
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

/** Nesting depth of a parsed value (iterative: a hostile value cannot overflow the stack). */
export function valueDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}
