import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe("health", () => {
  test("GET /health reports ok and the API version", async () => {
    const reply = await server.request("GET", "/health");
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe("ok");
    expect(reply.body.version).toBe("0.6.0");
    expect(typeof reply.body.protocol).toBe("string");
    expect(new Date(reply.body.timestamp).toISOString()).toBe(reply.body.timestamp);
  });
});
