// Calling the paid resource for POST /x402/pay: through the outbound guard with a time and size bound,
// what it answered as the caller sees it, and why a paid request did not deliver. Never decides a payment.
import { parseJson } from "../json";
import { outboundFetch, OutboundRefused, readCapped, TooLarge } from "../net/outbound";
import { parseOffer, settlementClaim } from "./protocol";

export const FETCH_TIMEOUT_MS = 10_000;
export const MAX_RESOURCE_BYTES = 1024 * 1024;

export type Answer = { response: Response; text: string } | { failure: string };
export type Resource = { status: number; headers: Record<string, string>; body: unknown };

const firstLine = (error: unknown) => String((error as Error)?.message ?? error).split("\n")[0]!.slice(0, 300);

/** Calls the resource through the outbound guard, with a time and size bound; never throws. */
export async function callResource(url: string, init: RequestInit): Promise<Answer> {
  try {
    const response = await outboundFetch(url, { ...init, timeoutMs: FETCH_TIMEOUT_MS });
    const bytes = await readCapped(response, MAX_RESOURCE_BYTES);
    return { response, text: new TextDecoder().decode(bytes) };
  } catch (error) {
    if (error instanceof OutboundRefused) return { failure: `url: ${error.message}` };
    if (error instanceof TooLarge) return { failure: `the resource's answer is ${error.message}` };
    if ((error as Error).name === "TimeoutError") return { failure: `the resource did not answer within ${FETCH_TIMEOUT_MS / 1000} s` };
    return { failure: `the resource did not answer: ${firstLine(error)}` };
  }
}

/** The answer as the caller gets it: the body parsed when it says JSON and parses; null if none came. */
export function resourceOf(answer: Answer): Resource | null {
  if ("failure" in answer) return null;
  let body: unknown = answer.text;
  if ((answer.response.headers.get("content-type") ?? "").includes("json")) {
    try {
      body = parseJson(answer.text);
    } catch {}
  }
  return { status: answer.response.status, headers: Object.fromEntries(answer.response.headers.entries()), body };
}

/** Why the paid request did not deliver, as far as the service can tell (not what decides the payment). */
export function problemOf(answer: Answer): string | null {
  if ("failure" in answer) return answer.failure;
  const { response, text } = answer;
  if (response.status === 402) {
    const reason = parseOffer(response.headers, text)?.error;
    return `the resource refused the payment (402)${reason ? `: ${reason}` : ""}`;
  }
  if (!response.ok) return `the resource answered ${response.status}`;
  return settlementClaim(response.headers)?.reason ?? null;
}
