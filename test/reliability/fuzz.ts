// bun run test:fuzz — bad input for every route of the OpenAPI document. Fails on any 5xx (but the
// contract's 503 CHAIN_UNAVAILABLE: the fuzzed server has no chain), any error
// body that is not { error, message } JSON, or any database change caused by a rejected request
// (checked with SQLite's data_version on a second, read-only connection).
//   FUZZ_REQUESTS (default 10000), FUZZ_SEED (default: random)
import { Database } from "bun:sqlite";
import { startTarget } from "./target";

const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 10_000);
let seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const firstSeed = seed;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const server = await startTarget({ RATE_LIMIT_DEFAULT: "1000000000", RATE_LIMIT_PUBLIC: "1000000000" });
const watcher = new Database(server.databasePath, { readonly: true });
const dataVersion = () => Number((watcher.query("PRAGMA data_version").get() as { data_version: number }).data_version);

const a = await server.register();
const b = await server.register();
await server.deposit(a.id, 100, "USDC");

const spec = (await server.request("GET", "/swagger/json")).body as { paths: Record<string, Record<string, { security?: unknown[]; requestBody?: unknown }>> };
const routes = Object.entries(spec.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
);

const weird: unknown[] = [
  null, true, false, 0, -1, 1e308, -1e308, 1e-320, 2 ** 53 + 1, "NaN", "Infinity", "-0", "1e999", "",
  " ", "\u0000", "💸".repeat(50), "ǅ̸̢͚̖", "<script>alert(1)</script>", "' OR 1=1 --", "../../etc/passwd",
  "x".repeat(5000), [], [1, 2, 3], {}, { $gt: "" }, { __proto__: { admin: true } }, "00000000-0000-0000-0000-000000000000",
  "not-a-uuid", a.id, b.id, "USDC", "DOGE", 0.001, 0.015, 100.01, 1e9, 1e10, -0.01,
];
const deep = (depth: number): unknown => (depth === 0 ? 1 : { nested: deep(depth - 1) });
const badIds = ["not-a-uuid", "00000000-0000-0000-0000-000000000000", "%00", "..%2F..", "a".repeat(300), "💸", crypto.randomUUID(), "lo_x", "bet_'", "-1"];
const auths = [
  () => ({ authorization: `Bearer ${a.apiKey}` }),
  () => ({ authorization: `Bearer ${a.apiKey}` }),
  () => ({ authorization: `Bearer ${a.apiKey}` }),
  () => ({ authorization: `Bearer ${a.apiKey}` }),
  () => ({ authorization: `Bearer ${b.apiKey}` }),
  () => ({ authorization: `Bearer ${b.apiKey}` }),
  () => ({}),
  () => ({ authorization: "Bearer pp_forged" }),
  () => ({ authorization: `Bearer ${a.ownerKey}` }),
  () => ({ authorization: "Basic YWRtaW46YWRtaW4=" }),
  () => ({ authorization: `Bearer ${"x".repeat(10000)}` }),
];

function body(): { raw: string; contentType: string } {
  const kind = random();
  if (kind < 0.05) return { raw: "{\"unterminated\": ", contentType: "application/json" };
  if (kind < 0.08) return { raw: JSON.stringify(deep(200 + Math.floor(random() * 2000))), contentType: "application/json" };
  if (kind < 0.1) return { raw: JSON.stringify({ blob: "x".repeat(2 * 1024 * 1024) }), contentType: "application/json" };
  if (kind < 0.13) return { raw: "amount=1&currency=USDC", contentType: "application/x-www-form-urlencoded" };
  if (kind < 0.16) return { raw: JSON.stringify(pick(weird)), contentType: "application/json" };
  const fields = ["amount", "currency", "toAgentId", "recipientId", "counterpartyId", "offer", "offerId", "quoteId", "serviceId", "outcome", "conditionId", "webhookUrl", "agentId", "reason", "subject", "body", "title", "conditions", "frequency", "escrowAmount", "limit", "seconds", "name", "ownerEmail"];
  const object: Record<string, unknown> = {};
  const count = Math.floor(random() * 6);
  for (let i = 0; i < count; i++) object[pick(fields)] = pick(weird);
  return { raw: JSON.stringify(object), contentType: pick(["application/json", "application/json", "text/plain", "application/json; charset=utf-8"]) };
}

const counts = { total: 0, status: new Map<number, number>() };
let failures = 0;
const fail = (message: string) => {
  failures += 1;
  if (failures <= 30) console.error(`FAIL: ${message}`);
};

while (counts.total + failures < TOTAL) {
  const route = pick(routes);
  // Rotating would end the run for the fuzzing agent; moving the clock is not a request users make.
  if (route.path.startsWith("/admin/clock") || route.path === "/agents/me/keys/rotate") continue;
  const path = route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(pick(badIds)));
  const query = random() < 0.3 ? `?limit=${encodeURIComponent(String(pick(weird)))}&offset=${encodeURIComponent(String(pick(weird)))}` : "";
  const headers: Record<string, string> = { ...pick(auths)() };
  if (route.path.startsWith("/admin") && random() < 0.5) headers.authorization = "Bearer test-admin-key";
  let raw: string | undefined;
  if (route.method !== "GET" && route.method !== "DELETE") {
    const generated = body();
    raw = generated.raw;
    headers["content-type"] = generated.contentType;
  }
  if (random() < 0.1) headers["idempotency-key"] = pick(["", "k", "x".repeat(300), "k y", "k1"]);
  const before = dataVersion();
  let response: Response;
  try {
    response = await fetch(server.url + path + query, { method: route.method, headers, body: raw });
  } catch (error) {
    fail(`${route.method} ${path}: request failed: ${error}`);
    continue;
  }
  const text = await response.text();
  counts.total += 1;
  counts.status.set(response.status, (counts.status.get(response.status) ?? 0) + 1);
  const label = `${route.method} ${path}${query} [${raw?.slice(0, 120)}]`;
  // 503 CHAIN_UNAVAILABLE is the contract's answer of chain routes when no chain is configured.
  const chainOff = response.status === 503 && text.includes('"CHAIN_UNAVAILABLE"');
  if (response.status >= 500 && !chainOff) fail(`${label} → ${response.status} ${text.slice(0, 200)}`);
  if (response.status >= 400) {
    let parsed: { error?: unknown; message?: unknown } | null = null;
    try {
      parsed = JSON.parse(text);
    } catch {}
    // Bun itself answers 413 with no body for bodies over its hard limit sent without Content-Length.
    if (!(response.status === 413 && text === "") && (typeof parsed?.error !== "string" || typeof parsed?.message !== "string")) {
      fail(`${label} → ${response.status} with a body that is not {error, message}: ${text.slice(0, 200)}`);
    }
    await Bun.sleep(0);
    if (dataVersion() !== before) fail(`${label} → ${response.status} but the database changed`);
  }
}

const statuses = [...counts.status.entries()].sort(([x], [y]) => x - y).map(([status, n]) => `${status}×${n}`).join(" ");
console.log(`fuzz: ${counts.total} requests over ${routes.length} routes (seed ${firstSeed}): ${statuses}; failures ${failures}`);
if (failures > 0) console.error(server.logs.join("").split("\n").filter((line) => line.includes("\"level\":\"error\"")).slice(0, 5).join("\n").slice(0, 3000));
watcher.close();
await server.close();
process.exit(failures === 0 ? 0 : 1);
