// Automatic resolution of API and ORACLE_NET bets. Settings are checked when the bet is created; at
// `resolveAt` a job reads the oracle (outside any transaction) and settles a MATCHED bet MET or NOT_MET.
// A failed or unusable read is retried (once a minute) for 24 h, then the bet goes to DISPUTED for the
// operator. API: GET the URL (SSRF guard, 10 s, 1 MiB), read `jsonPath`, compare. ORACLE_NET: a
// Chainlink-style aggregator's latestRoundData via src/chain; a round older than 1 h at resolveAt is
// not used.
import { readFeed } from "../chain/feeds";
import { clock } from "../clock";
import { invalid } from "../errors";
import { logLine } from "../log";
import { parseJson } from "../json";
import { assertCallable, outboundFetch, readCapped } from "../net/outbound";
import { DAY_MS, MINUTE_MS } from "../time";

export const ORACLE_TYPES = ["MANUAL", "API", "ORACLE_NET"] as const;
export const OUTCOMES = ["MET", "NOT_MET", "VOID"] as const;
export type OracleType = (typeof ORACLE_TYPES)[number];
export type Outcome = (typeof OUTCOMES)[number];

export const OPERATORS = ["eq", "ne", "gt", "gte", "lt", "lte"] as const;
type Operator = (typeof OPERATORS)[number];
type Scalar = string | number | boolean;

export type ApiOracle = { url: string; jsonPath: string; operator: Operator; value: Scalar; resolveAt: string };
export type FeedOracle = { feed: string; operator: Operator; value: number; resolveAt: string };

const RETRY_WINDOW_MS = DAY_MS;
const RETRY_EVERY_MS = MINUTE_MS;
const FETCH_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 1024 * 1024;
const STALE_AFTER_S = 3600;

function isOperator(value: unknown): value is Operator {
  return typeof value === "string" && (OPERATORS as readonly string[]).includes(value);
}

/** Checks the settings of an API or ORACLE_NET bet at creation (400 with the reason otherwise). */
export function checkOracleSettings(type: OracleType, oracle: Record<string, unknown>): void {
  const keys = type === "API" ? ["url", "jsonPath", "operator", "value", "resolveAt"] : ["feed", "operator", "value", "resolveAt"];
  const extra = Object.keys(oracle).filter((key) => !keys.includes(key));
  if (extra.length > 0) throw invalid(`unknown ${type} oracle settings: ${extra.join(", ")} (expected ${keys.join(", ")})`);
  if (!isOperator(oracle.operator)) throw invalid(`oracle.operator must be one of ${OPERATORS.join(", ")}`);
  const resolveAt = typeof oracle.resolveAt === "string" ? Date.parse(oracle.resolveAt) : Number.NaN;
  if (!Number.isFinite(resolveAt)) throw invalid("oracle.resolveAt must be an ISO 8601 time");
  if (resolveAt <= clock.nowMs()) throw invalid("oracle.resolveAt must be in the future");
  if (type === "API") {
    if (typeof oracle.url !== "string" || !/^https?:\/\/\S+$/.test(oracle.url) || oracle.url.length > 2048) throw invalid("oracle.url must be an http(s) URL");
    if (typeof oracle.jsonPath !== "string" || oracle.jsonPath.length === 0 || oracle.jsonPath.length > 200) throw invalid("oracle.jsonPath must be a path such as $.data.price");
    if (!["string", "number", "boolean"].includes(typeof oracle.value)) throw invalid("oracle.value must be a string, number or boolean");
    if (typeof oracle.value !== "number" && !["eq", "ne"].includes(oracle.operator as string)) throw invalid("only eq and ne compare non-numeric values");
  } else {
    if (typeof oracle.feed !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(oracle.feed)) throw invalid("oracle.feed must be the aggregator's 0x address");
    if (typeof oracle.value !== "number" || !Number.isFinite(oracle.value)) throw invalid("oracle.value must be a number");
  }
}

/** `$.a.b[0].c` or `a.b.0.c`. */
/** Before a bet is made: an API oracle's URL resolves to a public address (checked again at each read). */
export async function assertOracleCallable(body: { oracleType?: OracleType; oracle?: Record<string, unknown> }): Promise<void> {
  if (body.oracleType === "API" && typeof body.oracle?.url === "string") await assertCallable(body.oracle.url, "oracle.url");
}

export function readPath(document: unknown, path: string): unknown {
  const parts = path.replace(/^\$\.?/, "").replace(/\[(\d+)\]/g, ".$1").split(".").filter(Boolean);
  let current: unknown = document;
  for (const part of parts) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function compare(actual: number | string | boolean, operator: Operator, expected: Scalar): boolean {
  if (operator === "eq") return actual === expected || (typeof expected === "number" && Number(actual) === expected);
  if (operator === "ne") return !compare(actual, "eq", expected);
  const left = Number(actual);
  const right = Number(expected);
  if (!Number.isFinite(left) || !Number.isFinite(right)) throw new Error(`cannot compare ${JSON.stringify(actual)} ${operator} ${JSON.stringify(expected)}`);
  return operator === "gt" ? left > right : operator === "gte" ? left >= right : operator === "lt" ? left < right : left <= right;
}

async function readApi(oracle: ApiOracle): Promise<boolean> {
  const response = await outboundFetch(oracle.url, { timeoutMs: FETCH_TIMEOUT_MS, headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`oracle answered ${response.status}`);
  const text = new TextDecoder().decode(await readCapped(response, MAX_RESPONSE_BYTES));
  const value = readPath(parseJson(text), oracle.jsonPath);
  if (value === undefined || (typeof value !== "number" && typeof value !== "string" && typeof value !== "boolean")) {
    throw new Error(`${oracle.jsonPath} is not a value in the oracle's answer`);
  }
  return compare(value, oracle.operator, oracle.value);
}

async function readNet(oracle: FeedOracle): Promise<boolean> {
  const { answer, decimals, updatedAt } = await readFeed(oracle.feed as `0x${string}`);
  if (updatedAt < Math.floor(Date.parse(oracle.resolveAt) / 1000) - STALE_AFTER_S) throw new Error("the feed's latest round is stale (older than 1 h at resolveAt)");
  const scale = 10 ** decimals;
  return compare(Number(answer) / scale, oracle.operator, oracle.value);
}

type MatchedOracleBet = { id: string; oracleType: OracleType; oracle: Record<string, unknown> };
const nextAttempt = new Map<string, number>();

/** What the oracle says now: MET / NOT_MET, "retry" (not yet usable) or "dispute" (gave up after 24 h). */
export async function consultOracle(bet: MatchedOracleBet): Promise<Outcome | "wait" | "dispute"> {
  const now = clock.nowMs();
  const resolveAt = Date.parse(String(bet.oracle.resolveAt));
  if (!(resolveAt <= now) || (nextAttempt.get(bet.id) ?? 0) > now) return "wait";
  try {
    const met = bet.oracleType === "API" ? await readApi(bet.oracle as ApiOracle) : await readNet(bet.oracle as unknown as FeedOracle);
    nextAttempt.delete(bet.id);
    return met ? "MET" : "NOT_MET";
  } catch (error) {
    logLine({ level: "warn", msg: "bet oracle read failed", betId: bet.id, error: String((error as Error).message ?? error).split("\n")[0] });
    if (now >= resolveAt + RETRY_WINDOW_MS) {
      nextAttempt.delete(bet.id);
      return "dispute";
    }
    nextAttempt.set(bet.id, now + RETRY_EVERY_MS);
    return "wait";
  }
}
