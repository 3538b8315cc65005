// A step not `yield*`ed (issue 34): `hold({...})` without `yield*` inside an op type-checks, and the op
// commits having done nothing — in a money service the one mistake the generator design makes easy. The
// TypeScript checker (TypeScript 5's compiler API: TypeScript 7 has none; the openapi-client workspace
// has it) reads src/ and fails on any expression statement whose value is an Op, a step generator left
// unrun. It proves it can fail on a fixture with a planted bare `hold(…)`.
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { join, relative } from "node:path";
import ts from "./openapi-client/node_modules/typescript";

const ROOT = join(import.meta.dir, "..");

/** Every expression statement of `files` whose value is an Op (or a generator of steps): "file:line: text". */
function bareSteps(files: string[]): string[] {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    resolveJsonModule: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const isStep = (type: ts.Type): boolean => {
    if (type.isUnion()) return type.types.some(isStep);
    if (type.aliasSymbol?.getName() === "Op") return true;
    const [yielded] = type.getSymbol()?.getName() === "Generator" ? checker.getTypeArguments(type as ts.TypeReference) : [];
    return yielded !== undefined && yielded.aliasSymbol?.getName() === "Step";
  };
  const found: string[] = [];
  for (const source of program.getSourceFiles()) {
    if (!files.includes(source.fileName)) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isExpressionStatement(node) && isStep(checker.getTypeAtLocation(node.expression))) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${relative(ROOT, source.fileName)}:${line + 1}: ${node.getText().split("\n")[0]!.slice(0, 100)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("a step is always yield*ed", () => {
  test("the checker finds the bare step planted in the fixture, and only it", () => {
    const found = bareSteps([join(ROOT, "test/fixtures/bare-step.ts")]);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain("test/fixtures/bare-step.ts:9: hold({ agentId");
  }, 60_000);

  test("no op in src/ calls a step without yield*", async () => {
    const files = (await Array.fromAsync(new Glob("src/**/*.ts").scan(ROOT))).filter((file) => !file.startsWith("src/client/")).map((file) => join(ROOT, file));
    expect(bareSteps(files)).toEqual([]);
  }, 120_000);
});
