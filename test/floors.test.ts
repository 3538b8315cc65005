// The house's shape, checked from the code's own imports (docs/architecture.md draws it): the folders
// of src/ (and its top-level files) import each other without a circle, so every one stands on a floor
// above all it imports and nothing imports upward; and no source file grows past ~300 lines.
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = join(import.meta.dir, "..", "src");
/** Generated files: their length is the generator's. */
const GENERATED = new Set(["client/openapi.ts", "db/migrations.generated.ts"]);
const MAX_LINES = 300;

const files = [...new Glob("**/*.ts").scanSync(SRC)].filter((file) => !file.startsWith("client/")).sort();
/** The room a file is in: its top folder under src/, or the top-level file itself. */
const roomOf = (file: string) => (file.includes("/") ? file.split("/")[0]! : file.replace(/\.ts$/, ""));

/** room → room it imports → the imports that draw that arrow ("from → to"); `roomOf` names the rooms (folders, or files). */
function importsBetweenRooms(room: (file: string) => string = roomOf): Map<string, Map<string, string[]>> {
  const arrows = new Map<string, Map<string, string[]>>();
  for (const file of files) {
    const text = readFileSync(join(SRC, file), "utf8");
    for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s+["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)|(?:^|\n)\s*import\s+["'](\.{1,2}\/[^"']+)["']/g)) {
      const target = relative(SRC, resolve(SRC, dirname(file), match[1] ?? match[2] ?? match[3]!));
      if (target.startsWith("..")) continue;
      const from = room(file);
      const to = room(target.endsWith(".ts") || target.endsWith(".js") ? target : `${target}.ts`);
      if (from === to) continue;
      const out = arrows.get(from) ?? new Map<string, string[]>();
      arrows.set(from, out);
      out.set(to, [...(out.get(to) ?? []), `${file} → ${target}`]);
    }
  }
  return arrows;
}

/** The circles: groups of rooms that reach each other (Tarjan's strongly connected components). */
function circles(arrows: Map<string, Map<string, string[]>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (room: string) => {
    index.set(room, index.size);
    low.set(room, index.get(room)!);
    stack.push(room);
    for (const next of arrows.get(room)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(room, Math.min(low.get(room)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(room, Math.min(low.get(room)!, index.get(next)!));
    }
    if (low.get(room) === index.get(room)) {
      const group: string[] = [];
      let member: string;
      do group.push((member = stack.pop()!));
      while (member !== room);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const room of arrows.keys()) if (!index.has(room)) visit(room);
  return found;
}

describe("the house", () => {
  test("no folder of src/ imports one that imports it back (every import runs down a floor)", () => {
    const arrows = importsBetweenRooms();
    expect(arrows.get("agents")?.size ?? 0).toBeGreaterThan(0); // the scan reads imports at all
    const report = circles(arrows).map((group) => ({
      circle: group.join(" ↔ "),
      imports: group.flatMap((room) => [...(arrows.get(room) ?? [])].filter(([to]) => group.includes(to)).flatMap(([, list]) => list)),
    }));
    expect(report).toEqual([]);
  });

  test("no file imports one that imports it back, inside a folder either", () => {
    const arrows = importsBetweenRooms((file) => file);
    expect(arrows.get("payments/service.ts")?.size ?? 0).toBeGreaterThan(0);
    expect(circles(arrows)).toEqual([]);
  });

  test("no route file imports read or write from the database (the doors decorate both: src/door, src/console/door.ts)", () => {
    const routeFiles = files.filter((file) => file.includes("routes"));
    expect(routeFiles).toContain("console/routes.ts"); // the scan finds route files at all
    const offending = routeFiles.flatMap((file) => {
      const text = readFileSync(join(SRC, file), "utf8");
      return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(type\s+)?(\{[^}]*\}|\*\s+as\s+\w+)\s*from\s*["']([^"']+)["']/g)]
        .filter(([, typeOnly, , path]) => !typeOnly && /(^|\/)db(\/index)?(\.ts)?$/.test(path!))
        .flatMap(([, , names, path]) => {
          // A namespace import (`* as db`) reaches every verb; named ones count unless type-only.
          const verbs = names!.startsWith("*") ? [names!] : names!.slice(1, -1).split(",").map((name) => name.trim()).filter((name) => !name.startsWith("type ")).map((name) => name.split(/\s+as\s+/)[0]!).filter((name) => ["read", "write", "transaction"].includes(name));
          return verbs.length ? [`${file}: ${verbs.join(", ")} from "${path}"`] : [];
        });
    });
    expect(offending).toEqual([]);
  });

  test(`no source file is longer than ${MAX_LINES} lines (generated ones aside)`, () => {
    const long = files
      .filter((file) => !GENERATED.has(file))
      .map((file) => ({ file, lines: readFileSync(join(SRC, file), "utf8").split("\n").length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
