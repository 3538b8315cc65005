// The x402 wire format, v1 and v2: reading a 402's payment requirements and writing the payment header.
import { getAddress } from "viem";

export type Requirement = {
  version: 1 | 2;
  scheme: string;
  network: string;
  amount: bigint;
  asset: string;
  payTo: `0x${string}`;
  maxTimeoutSeconds: number;
  extra: { name?: string; version?: string };
  /** The requirement exactly as the server sent it (v2 echoes it back as `accepted`). */
  raw: Record<string, unknown>;
};

export type Offer = { requirements: Requirement[]; resource: unknown; paymentIdentifier: boolean };

const decode = (header: string) => JSON.parse(Buffer.from(header, "base64").toString("utf8"));
export const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

function requirement(version: 1 | 2, raw: Record<string, unknown>): Requirement | null {
  try {
    const amount = BigInt(String(version === 1 ? raw.maxAmountRequired : raw.amount));
    return {
      version,
      scheme: String(raw.scheme),
      network: String(raw.network),
      amount,
      asset: String(raw.asset),
      payTo: getAddress(String(raw.payTo)),
      maxTimeoutSeconds: Math.min(Math.max(Number(raw.maxTimeoutSeconds) || 60, 10), 3600),
      extra: (raw.extra as Requirement["extra"]) ?? {},
      raw,
    };
  } catch {
    return null;
  }
}

/** v2 puts the requirements in the PAYMENT-REQUIRED header; v1 in the JSON body. */
export function parseOffer(headers: Headers, bodyText: string): Offer | null {
  const header = headers.get("payment-required");
  let document: Record<string, unknown>;
  let version: 1 | 2;
  try {
    if (header) {
      document = decode(header);
      version = 2;
    } else {
      document = JSON.parse(bodyText);
      version = 1;
    }
  } catch {
    return null;
  }
  const accepts = Array.isArray(document.accepts) ? document.accepts : [];
  const requirements = accepts.map((raw) => requirement(version, raw as Record<string, unknown>)).filter((r): r is Requirement => r !== null);
  const extensions = (document.extensions ?? {}) as Record<string, unknown>;
  return { requirements, resource: document.resource, paymentIdentifier: version === 2 && "payment-identifier" in extensions };
}

export type Authorization = { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string };

/** The request header carrying the signed EIP-3009 authorization. */
export function paymentHeader(offer: Offer, chosen: Requirement, signature: string, authorization: Authorization, paymentId: string): [string, string] {
  const payload = { signature, authorization };
  if (chosen.version === 1) {
    return ["X-PAYMENT", encode({ x402Version: 1, scheme: chosen.scheme, network: chosen.network, payload })];
  }
  return [
    "PAYMENT-SIGNATURE",
    encode({
      x402Version: 2,
      resource: offer.resource,
      accepted: chosen.raw,
      payload,
      ...(offer.paymentIdentifier ? { extensions: { "payment-identifier": { info: { id: paymentId } } } } : {}),
    }),
  ];
}

/** The settlement the server reports on success (X-PAYMENT-RESPONSE in v1, PAYMENT-RESPONSE in v2). */
export function settlement(headers: Headers): { success: boolean; transaction?: string } | null {
  const header = headers.get("payment-response") ?? headers.get("x-payment-response");
  if (!header) return null;
  try {
    return decode(header);
  } catch {
    return null;
  }
}
