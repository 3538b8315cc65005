// The OpenAPI document declares what every route answers: a 2xx JSON schema (which Elysia checks
// every answer against, so it cannot drift from the code) beside its error answers. And every model's
// example is an answer that model accepts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import "../src/http/docs"; // the string formats (uuid, date-time, ...) the service checks with
import { startServer, type TestServer } from "./helpers/server";

/** Every feature folder with a model.ts: found, not listed, so a new or moved one is checked too. */
const FEATURES = [...new Bun.Glob("*/model.ts").scanSync({ cwd: `${import.meta.dir}/../src` })].map((path) => path.split("/")[0]!).sort();

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };

let server: TestServer;
let paths: Record<string, Record<string, Operation>>;
beforeAll(async () => {
  server = await startServer();
  paths = (await server.request("GET", "/swagger/json")).body.paths;
});
afterAll(() => server.close());

describe("OpenAPI responses", () => {
  test("every operation has a 2xx application/json schema and keeps its error answers", () => {
    const operations = Object.entries(paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })));
    expect(operations.length).toBeGreaterThan(70);
    for (const { route, operation } of operations) {
      const statuses = Object.keys(operation.responses ?? {});
      // The one binary answer: the database backup file.
      const type = route === "GET /admin/backup" ? "application/vnd.sqlite3" : "application/json";
      const success = statuses.filter((status) => status.startsWith("2") && operation.responses![status]!.content?.[type]?.schema);
      expect({ route, success: success.length > 0 }).toEqual({ route, success: true });
      // docs() lists 400 VALIDATION_ERROR on every route; answers() keeps it once `response` is declared.
      // (/health and /health/ready declare `response` without answers(), so their error list is not kept.)
      if (!route.includes(" /health")) expect({ route, errors: statuses.includes("400") }).toEqual({ route, errors: true });
    }
  });

  test("lists answer the pagination envelope", () => {
    for (const path of ["/wallets/history", "/messages/inbox", "/lending/offers", "/services/discover", "/x402/payments"]) {
      const list = paths[path]!.get!.responses!["200"]!.content!["application/json"]!.schema as { required: string[] };
      expect({ path, required: list.required }).toEqual({ path, required: ["data", "pagination"] });
    }
  });
});

describe("models", () => {
  test("every example validates against its model", async () => {
    let checked = 0;
    for (const feature of FEATURES) {
      const models = (await import(`../src/${feature}/model.ts`)) as Record<string, { examples?: unknown[] }>;
      for (const [name, schema] of Object.entries(models)) {
        if (!schema || typeof schema !== "object" || !Array.isArray(schema.examples)) continue;
        for (const example of schema.examples) {
          checked++;
          const errors = [...Value.Errors(schema as never, example)].map((error) => `${error.path}: ${error.message}`);
          expect({ model: `${feature}/${name}`, errors }).toEqual({ model: `${feature}/${name}`, errors: [] });
        }
      }
    }
    expect(checked).toBeGreaterThan(25);
  });
});
