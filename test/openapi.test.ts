// The OpenAPI document as the tools people generate clients with take it: swagger-parser validates it,
// Redocly's recommended rules find no error, the committed client types are what openapi-typescript
// makes of it today, and a client built from them (openapi-fetch) compiles a first journey under
// `tsc --strict` with no casts — and that journey runs against the real service.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { currentDocument, generate, GENERATED } from "./openapi-client/generate";
import { journey } from "./openapi-client/journey";
import { ADMIN_KEY, startServer, type TestServer } from "./helpers/server";

const CLIENT = join(import.meta.dir, "openapi-client");

let server: TestServer;
let document: Record<string, any>;
beforeAll(async () => {
  server = await startServer();
  document = (await server.request("GET", "/swagger/json")).body;
});
afterAll(() => server.close());

describe("the OpenAPI document", () => {
  test("validates with swagger-parser", async () => {
    await SwaggerParser.validate(structuredClone(document) as never);
  });

  test("has no error under Redocly's recommended rules", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "/openapi.json", config });
    const errors = problems.filter((problem) => problem.severity === "error").map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    const warnings = problems.filter((problem) => problem.severity === "warn").map((problem) => `${problem.ruleId}: ${problem.location[0]?.pointer}`);
    expect(warnings).toEqual([]);
  });

  test("every operation has a camelCase operationId, JSON-only bodies, and the headers the service uses", () => {
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect([path, method, operation.operationId]).toEqual([path, method, expect.stringMatching(/^[a-z][A-Za-z0-9]+$/)]);
        if (operation.requestBody) expect([path, Object.keys(operation.requestBody.content)]).toEqual([path, ["application/json"]]);
        for (const response of Object.values(operation.responses as Record<string, any>)) expect(response.headers["Request-Id"]).toBeDefined();
      }
    }
    expect(document.paths["/payments/send"].post.parameters).toContainEqual({ $ref: "#/components/parameters/IdempotencyKey" });
    expect(document.paths["/payments/send"].post.responses["429"].headers["Retry-After"]).toBeDefined();
    expect(document.paths["/x402/facilitator/settle"].post.responses["503"]).toMatchObject({ description: "CHAIN_UNAVAILABLE, SERVICE_BUSY", headers: { "Retry-After": expect.anything() } });
    expect(document.components.schemas.Error.properties.error.enum).toContain("INSUFFICIENT_BALANCE");
  });
});

describe("the typed client", () => {
  test("the committed types (src/client/openapi.ts) are what openapi-typescript makes of the document", async () => {
    const fresh = await generate(await currentDocument());
    expect(fresh === (await Bun.file(GENERATED).text()) ? "up to date" : "stale: run bun run client:generate").toBe("up to date");
  }, 60_000);

  test("a register → deposit → pay → history → message journey compiles under tsc --strict with no casts", async () => {
    const source = await Bun.file(join(CLIENT, "journey.ts")).text();
    expect(source).not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[]|<[A-Za-z]+>\s*[a-z(]|@ts-/);
    const tsc = Bun.spawn([join(CLIENT, "node_modules/.bin/tsc"), "-p", join(CLIENT, "tsconfig.json")], { stdout: "pipe", stderr: "pipe" });
    const output = await new Response(tsc.stdout).text();
    expect(output).toBe("");
    expect(await tsc.exited).toBe(0);
  }, 120_000);

  test("and it runs against the service", async () => {
    const result = await journey(server.url, ADMIN_KEY);
    expect(result.payment).toMatchObject({ amount: 7.5, status: "COMPLETED" });
    expect(result.movements[0]).toMatchObject({ type: "PAYMENT_SENT", amount: -7.5 });
    expect(result.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.refusedWith).toBe("INSUFFICIENT_BALANCE");
  });
});
