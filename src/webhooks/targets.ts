// SSRF guard for outgoing requests (webhooks, x402): the target's resolved addresses must be public
// unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true. Checked when the URL is set and again at delivery.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { config } from "../config";
import { invalid } from "../errors";
import { webhookSecret } from "../ids";

export const newWebhookSecret = webhookSecret;

function ipv4Private(address: string): boolean {
  const [a, b] = address.split(".").map(Number) as [number, number];
  return (
    a === 0 || a === 10 || a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

export function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 4) return ipv4Private(address);
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return ipv4Private(mapped[1]!);
  return (
    lower === "::" || lower === "::1" ||
    lower.startsWith("fc") || lower.startsWith("fd") || // unique local
    lower.startsWith("fe8") || lower.startsWith("fe9") || lower.startsWith("fea") || lower.startsWith("feb") || // link-local
    lower.startsWith("ff") // multicast
  );
}

/** Returns the reason the URL may not be called, or null when it may. */
export async function targetProblem(url: string): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a valid URL";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "only http and https URLs are allowed";
  if (parsed.username || parsed.password) return "credentials in the URL are not allowed";
  if (config.webhookAllowPrivateNetworks) return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    return `cannot resolve ${host}`;
  }
  if (addresses.length === 0) return `cannot resolve ${host}`;
  if (addresses.some(isPrivateAddress)) {
    return "the URL resolves to a loopback, private, link-local or metadata address";
  }
  return null;
}

export async function assertWebhookTarget(url: string): Promise<void> {
  const problem = await targetProblem(url);
  if (problem) throw invalid(`webhookUrl: ${problem}`);
}
