// The one way the service calls a URL an agent gave it (webhooks, x402 resources, bet oracles).
// SSRF guard: the host is resolved once, every address must be global unicast (isPublicAddress in
// addresses.ts: ipaddr.js ranges, with IPv4 embedded in IPv6 unwrapped first), and the connection is
// made to the address that was checked, with the original Host header and TLS name, so DNS cannot
// answer differently at connect time. WEBHOOK_ALLOW_PRIVATE_NETWORKS=true skips the range check (never the pinning).
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { isPublicAddress } from "./addresses";
import { config } from "../config";
import { invalid } from "../errors";

export class OutboundRefused extends Error {}

const DNS_TIMEOUT_MS = 5_000;

type Target = { url: URL; address: string };

async function resolveHost(host: string): Promise<string[]> {
  if (ipaddr.isValid(host)) return [host];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OutboundRefused(`resolving ${host} took longer than ${DNS_TIMEOUT_MS / 1000} s`)), DNS_TIMEOUT_MS);
  });
  try {
    const entries = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
    return entries.map((entry) => entry.address);
  } catch (error) {
    if (error instanceof OutboundRefused) throw error;
    throw new OutboundRefused(`cannot resolve ${host}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Parses and resolves `url`; throws OutboundRefused with the reason it may not be called. */
export async function resolveTarget(text: string): Promise<Target> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundRefused("not a valid URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new OutboundRefused("only http and https URLs are allowed");
  if (url.username || url.password) throw new OutboundRefused("credentials in the URL are not allowed");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = await resolveHost(host);
  if (addresses.length === 0) throw new OutboundRefused(`cannot resolve ${host}`);
  if (!config.webhookAllowPrivateNetworks && !addresses.every(isPublicAddress)) {
    throw new OutboundRefused("the URL resolves to a loopback, private, link-local, metadata or otherwise non-public address");
  }
  return { url, address: addresses[0]! };
}

/** The reason `url` may not be called, or null; for checking a URL when it is set. */
export async function outboundProblem(url: string): Promise<string | null> {
  try {
    await resolveTarget(url);
    return null;
  } catch (error) {
    if (error instanceof OutboundRefused) return error.message;
    throw error;
  }
}

/** 400 VALIDATION_ERROR naming `field` when `url` may not be called. */
export async function assertCallable(url: string, field: string): Promise<void> {
  const problem = await outboundProblem(url);
  if (problem) throw invalid(`${field}: ${problem}`);
}

/**
 * Calls `url` through the guard: connects to the checked address and never follows redirects.
 * `timeoutMs` bounds the whole exchange, reading the body (readCapped) included.
 * Throws OutboundRefused (guard) or the fetch error (a timeout is a `TimeoutError`).
 */
export async function outboundFetch(url: string, init: RequestInit & { timeoutMs: number }): Promise<Response> {
  const { timeoutMs, ...rest } = init;
  const signal = AbortSignal.timeout(timeoutMs);
  const target = await resolveTarget(url);
  const pinned = new URL(target.url);
  pinned.hostname = target.address.includes(":") ? `[${target.address}]` : target.address;
  const headers = new Headers(rest.headers);
  headers.set("host", target.url.host);
  return fetch(pinned, {
    ...rest,
    headers,
    redirect: "manual",
    signal,
    tls: { serverName: target.url.hostname.replace(/^\[|\]$/g, "") },
  } as RequestInit);
}

export class TooLarge extends Error {}

/** Reads a body, refusing more than `maxBytes` (chunked answers included). */
export async function readCapped(source: { body: ReadableStream<Uint8Array> | null }, maxBytes: number): Promise<Uint8Array> {
  const reader = source.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new TooLarge(`larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
