// The one source of randomness for ids, keys and secrets; and the types that tell ids apart.
import { randomBytes } from "node:crypto";

declare const idOf: unique symbol;
/**
 * The id of one kind of thing: a plain string to the engines and in JSON, a type of its own to the
 * checker, so a loan's id where an agent's is expected does not compile. Declared on the table's id
 * column (`text<AgentId>()`); a column that references it takes its type (src/db/tables.ts). An id
 * from outside gets its kind where it is checked: the route's schema (src/http/models.ts).
 */
export type Id<Kind extends string> = string & { readonly [idOf]: Kind };
export type AgentId = Id<"agent">;
export type LoanId = Id<"loan">;

/**
 * UUIDv7: time-ordered, so new rows append to the end of each primary-key index instead of landing on
 * a random page (random v4 keys made every commit write several times more pages).
 */
export const uuid = (): string => Bun.randomUUIDv7();

/** Short prefixed ids for the resources the spec types as plain strings (loans, bets, quotes, ...). */
export const prefixedId = (prefix: string): string => `${prefix}_${randomBytes(12).toString("base64url")}`;

/** A secret of 32 random bytes with a readable prefix: pp_ (agent key), po_ (owner key), whsec_. */
export const secret = (prefix: string): string => `${prefix}${randomBytes(32).toString("base64url")}`;

/** Bun's native SHA-256: node:crypto's createHash cost 20 µs per authenticated request. */
export const sha256Hex = (text: string): string => Bun.SHA256.hash(text, "hex") as string;

/** A Standard Webhooks signing secret: whsec_ + base64 of 24 random bytes. */
export const webhookSecret = (): string => `whsec_${randomBytes(24).toString("base64")}`;

/** 32 random bytes as 0x-hex: an EIP-3009 authorization nonce. */
export const randomNonce = (): `0x${string}` => `0x${randomBytes(32).toString("hex")}`;
