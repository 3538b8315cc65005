// The x402 wire format, v1 and v2: reading a 402's payment requirements (strictly: anything but a
// positive integer amount of the configured USDC on the configured network is refused with its
// reason), writing the payment header, and reading what the server answers to it.
import { getAddress, isAddress, zeroAddress } from "viem";
import { parseJson } from "../json";

export type Requirement = {
  version: 1 | 2;
  /** exact: EIP-3009 for amount; upto: a Permit2 permit for at most amount (x402/upto.ts). */
  scheme: "exact" | "upto";
  network: string;
  amount: bigint;
  asset: `0x${string}`;
  payTo: `0x${string}`;
  maxTimeoutSeconds: number;
  extra: { name?: string; version?: string };
  /** upto: the facilitator the permit's witness names (extra.facilitatorAddress), the only one that may settle it. */
  facilitator: `0x${string}` | null;
  /** The requirement exactly as the server sent it (v2 echoes it back as `accepted`). */
  raw: Record<string, unknown>;
};

export type Offer = {
  version: 1 | 2;
  requirements: Record<string, unknown>[];
  resource: unknown;
  /** v2 extensions as the server advertised them; the payment echoes them. */
  extensions: Record<string, unknown>;
  /** The server's own reason (`error`), if it gave one. */
  error: string | null;
};

export type Expected = { networks: Set<string>; usdc: `0x${string}` };

/** 10^18 base units is a trillion USDC, far above any payment (and the 1e9 cap): a longer "amount" is not a price. */
const MAX_AMOUNT_DIGITS = 18;
const MAX_REQUIREMENTS = 20;

const decode = (header: string) => parseJson(Buffer.from(header, "base64").toString("utf8"));
export const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

const reasonOf = (document: Record<string, unknown>) => (typeof document.error === "string" ? document.error.slice(0, 500) : null);

/** v2 puts the requirements in the PAYMENT-REQUIRED header; v1 in the JSON body. Null if neither parses. */
export function parseOffer(headers: Headers, bodyText: string): Offer | null {
  const header = headers.get("payment-required");
  let document: unknown;
  try {
    document = header ? decode(header) : parseJson(bodyText);
  } catch {
    return null;
  }
  if (document === null || typeof document !== "object" || Array.isArray(document)) return null;
  const fields = document as Record<string, unknown>;
  const accepts = Array.isArray(fields.accepts) ? fields.accepts.slice(0, MAX_REQUIREMENTS) : [];
  const extensions = fields.extensions;
  return {
    version: header ? 2 : 1,
    requirements: accepts.filter((raw): raw is Record<string, unknown> => raw !== null && typeof raw === "object" && !Array.isArray(raw)),
    resource: fields.resource,
    extensions: extensions !== null && typeof extensions === "object" && !Array.isArray(extensions) ? (extensions as Record<string, unknown>) : {},
    error: reasonOf(fields),
  };
}

/** The requirement, or the reason it cannot be paid. */
export function readRequirement(version: 1 | 2, raw: Record<string, unknown>, expected: Expected): Requirement | string {
  const amountText = version === 1 ? raw.maxAmountRequired : raw.amount;
  const field = version === 1 ? "maxAmountRequired" : "amount";
  if (raw.scheme !== "exact" && raw.scheme !== "upto") return `scheme ${JSON.stringify(raw.scheme)} is neither "exact" nor "upto"`;
  if (typeof raw.network !== "string" || !expected.networks.has(raw.network)) return `network ${JSON.stringify(raw.network)} is not ${[...expected.networks].join(" or ")}`;
  if (typeof raw.asset !== "string" || !isAddress(raw.asset, { strict: false }) || getAddress(raw.asset) !== getAddress(expected.usdc)) {
    return `asset ${JSON.stringify(raw.asset)} is not the configured USDC ${expected.usdc}`;
  }
  if (typeof amountText !== "string" || !/^[1-9][0-9]*$/.test(amountText) || amountText.length > MAX_AMOUNT_DIGITS) {
    return `${field} ${JSON.stringify(amountText)} is not a positive whole number of USDC base units (at most ${MAX_AMOUNT_DIGITS} digits)`;
  }
  if (typeof raw.payTo !== "string" || !isAddress(raw.payTo, { strict: false }) || getAddress(raw.payTo) === zeroAddress) return `payTo ${JSON.stringify(raw.payTo)} is not an address`;
  const extra = raw.extra !== null && typeof raw.extra === "object" ? (raw.extra as Record<string, unknown>) : {};
  const facilitator = extra.facilitatorAddress;
  const upto = raw.scheme === "upto";
  if (upto && (typeof facilitator !== "string" || !isAddress(facilitator, { strict: false }) || getAddress(facilitator) === zeroAddress)) {
    return `upto's extra.facilitatorAddress ${JSON.stringify(facilitator)} is not an address`;
  }
  return {
    version,
    scheme: raw.scheme,
    network: raw.network,
    amount: BigInt(amountText),
    asset: getAddress(raw.asset),
    payTo: getAddress(raw.payTo),
    maxTimeoutSeconds: Math.min(Math.max(Number(raw.maxTimeoutSeconds) || 60, 10), 3600),
    extra: {
      name: typeof extra.name === "string" ? extra.name : undefined,
      version: typeof extra.version === "string" ? extra.version : undefined,
    },
    facilitator: upto ? getAddress(facilitator as string) : null,
    raw,
  };
}

/**
 * The v2 extensions of the payment: each one the server advertised, echoed as it was advertised
 * (servers compare the echo), with payment-identifier's `info.id` set to our payment's id.
 */
function echoExtensions(advertised: Record<string, unknown>, paymentId: string): Record<string, unknown> {
  const echoed: Record<string, unknown> = { ...advertised };
  const identifier = advertised["payment-identifier"];
  if (identifier !== null && typeof identifier === "object") {
    const info = (identifier as { info?: unknown }).info;
    echoed["payment-identifier"] = { ...identifier, info: { ...(info !== null && typeof info === "object" ? info : {}), id: paymentId } };
  }
  return echoed;
}

/** The request header carrying the signed payload (exact: { signature, authorization }; upto: { signature, permit2Authorization }). */
export function paymentHeader(offer: Offer, chosen: Requirement, payload: Record<string, unknown>, paymentId: string): [string, string] {
  if (chosen.version === 1) {
    return ["X-PAYMENT", encode({ x402Version: 1, scheme: chosen.scheme, network: chosen.network, payload })];
  }
  const extensions = echoExtensions(offer.extensions, paymentId);
  return [
    "PAYMENT-SIGNATURE",
    encode({ x402Version: 2, resource: offer.resource, accepted: chosen.raw, payload, ...(Object.keys(extensions).length > 0 ? { extensions } : {}) }),
  ];
}

export type SettlementClaim = { success: boolean; transaction: string | null; reason: string | null; amount: bigint | null };

/** What the server says of settlement (X-PAYMENT-RESPONSE in v1, PAYMENT-RESPONSE in v2), on any status; `amount`: what upto settled. */
export function settlementClaim(headers: Headers): SettlementClaim | null {
  const header = headers.get("payment-response") ?? headers.get("x-payment-response");
  if (!header) return null;
  try {
    const claim = decode(header) as Record<string, unknown>;
    const transaction = typeof claim.transaction === "string" && /^0x[0-9a-fA-F]{64}$/.test(claim.transaction) ? claim.transaction : null;
    const reason = typeof claim.errorReason === "string" ? claim.errorReason.slice(0, 500) : null;
    const amount = typeof claim.amount === "string" && /^[0-9]{1,18}$/.test(claim.amount) ? BigInt(claim.amount) : null;
    return { success: claim.success === true, transaction, reason, amount };
  } catch {
    return null;
  }
}
