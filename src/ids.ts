// The one source of randomness for ids, keys and secrets.
import { createHash, randomBytes } from "node:crypto";

export const uuid = (): string => crypto.randomUUID();

/** Short prefixed ids for the resources the spec types as plain strings (loans, bets, quotes, ...). */
export const prefixedId = (prefix: string): string => `${prefix}_${randomBytes(12).toString("base64url")}`;

/** A secret of 32 random bytes with a readable prefix: pp_ (agent key), po_ (owner key), whsec_. */
export const secret = (prefix: string): string => `${prefix}${randomBytes(32).toString("base64url")}`;

export const sha256Hex = (text: string): string => createHash("sha256").update(text).digest("hex");

/** A Standard Webhooks signing secret: whsec_ + base64 of 24 random bytes. */
export const webhookSecret = (): string => `whsec_${randomBytes(24).toString("base64")}`;
