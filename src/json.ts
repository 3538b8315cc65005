// JSON that comes from outside (request bodies, resource and oracle answers) is bounded in nesting
// before it is parsed: JSON.parse, JSON.stringify and every recursive walk would otherwise spend
// seconds, or the stack, on a document nested 50,000 deep.

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

/** JSON with object keys sorted at every level: the same value in any key order gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
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
