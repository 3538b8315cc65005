// The x402 "upto" scheme as a buyer: the resource asks for at most `amount` and charges what was used.
// The signer (the treasury for an outside payee, the internal settlement signer for an agent's deposit
// address, as for exact: pay.ts) signs a Permit2 permit for the maximum, which the official upto proxy
// settles for any amount up to it, once, until its deadline (chain/permit2.ts). The agent's maximum is
// HELD (a ledger hold) while the payment is PENDING; the chain, never the resource's answer, then says
// what was paid: the permit's Permit2 nonce used, in a transaction that called the proxy with it and
// moved that amount from the signer to payTo. Only that is charged; the rest of the hold is released.
// A permit past its deadline (in a confirmed block) with its nonce unused releases the whole hold.
// What the resource's payment response says and the chain contradicts is flagged on the payment.
import { getAddress, type Address, type Hex } from "viem";
import { internalSignerAccount, treasuryAccount } from "../chain/keys";
import { permit2NonceUsed, signUptoPermit, uptoSettlementIn, type UptoSettlement } from "../chain/permit2";
import { approvePermit2 } from "../chain/permit2-approval";
import { treasuryTransfers } from "../chain/schema";
import { watchCursor } from "../chain/watcher";
import { read, select } from "../db";
import { logLine } from "../log";
import { toMajor } from "../money";
import type { Payment } from "./payments";
import type { Requirement, SettlementClaim } from "./protocol";

type Signer = ReturnType<typeof treasuryAccount>;

/** How many of the treasury's confirmed transfers to payTo are looked through for the permit's use when the resource named none. */
const CANDIDATE_TRANSFERS = 20;

/** The signed permit for `chosen` (an upto requirement), the treasury's Permit2 approval made first if it signs. */
export async function signUpto(signer: Signer, chosen: Requirement, validForSeconds: number) {
  if (signer.address === treasuryAccount().address) await approvePermit2(chosen.amount);
  const permit = await signUptoPermit({ signer, payTo: chosen.payTo, facilitator: chosen.facilitator!, maximum: chosen.amount, validForSeconds });
  return { nonce: permit.nonce, validBefore: permit.deadline, payload: permit.payload };
}

/**
 * What the chain says of a PENDING upto payment: decided (settled, or expired: settled null) or not yet,
 * with what the resource said that it contradicts (null: nothing).
 */
export type UptoVerdict = { decided: boolean; settled: UptoSettlement | null; flag: string | null };

const usdc = (minor: bigint) => `${toMajor(minor, "USDC")} USDC`;

/** Where the resource's payment response and the chain's settlement disagree. */
function contradiction(claim: SettlementClaim | null, maximum: bigint, settled: UptoSettlement | null, decided: boolean): string | null {
  if (!claim?.success) return null;
  const said = `the resource's payment response says it settled${claim.amount === null ? "" : ` ${usdc(claim.amount)}`}${claim.transaction ? ` in ${claim.transaction}` : ""}`;
  if (claim.amount !== null && claim.amount > maximum) return `${said}, above the maximum ${usdc(maximum)}; the chain shows ${settled ? usdc(settled.amount) : "the permit unused"}`;
  if (!decided) return null;
  if (!settled) return claim.transaction || (claim.amount ?? 0n) > 0n ? `${said}; the chain shows the permit never used` : null;
  if ((claim.amount !== null && claim.amount !== settled.amount) || (claim.transaction !== null && claim.transaction.toLowerCase() !== settled.transaction.toLowerCase())) {
    return `${said}; the chain shows ${usdc(settled.amount)} in ${settled.transaction}`;
  }
  return null;
}

/** The transactions that may have used the permit: the one the resource named, then the treasury's confirmed transfers to payTo, newest first. */
async function candidates(row: Payment, claimed: string | null): Promise<Hex[]> {
  const transfers = await read(select(treasuryTransfers, `direction = 'out' AND counterparty = ? ORDER BY block_number DESC LIMIT ${CANDIDATE_TRANSFERS}`, getAddress(row.payTo)));
  return [...new Set([claimed, row.transaction, ...transfers.map((transfer) => transfer.txHash)].filter((hash): hash is string => hash !== null).map((hash) => hash.toLowerCase() as Hex))];
}

/**
 * What the chain says of PENDING upto payment `row` now (null: nothing yet, and nothing to flag):
 * settled (the permit's nonce used, in a transaction found and read), or expired (a confirmed block
 * past the deadline, the nonce unused there: no later block can use it). `claim`: the resource's
 * payment response, compared with what the chain shows (a claim above the maximum is flagged at once).
 */
export async function uptoVerdict(row: Payment, claim: SettlementClaim | null): Promise<UptoVerdict | null> {
  const owner: Address = row.internalAgentId ? internalSignerAccount().address : treasuryAccount().address;
  const nonce = row.authorizationNonce as Hex;
  const verdict = (decided: boolean, settled: UptoSettlement | null): UptoVerdict | null => {
    const flag = contradiction(claim, row.amount, settled, decided);
    if (flag) logLine({ level: "warn", msg: "x402 upto: the resource's payment response contradicts the chain", x402PaymentId: row.id, flag });
    return decided || flag ? { decided, settled, flag } : null;
  };
  const cursor = await read(watchCursor());
  if (cursor?.timestamp != null && cursor.timestamp > row.validBefore! && !(await permit2NonceUsed(owner, nonce, cursor.block))) return verdict(true, null);
  // The internal settlement signer holds no USDC: its permit cannot move any on chain.
  if (row.internalAgentId || !(await permit2NonceUsed(owner, nonce))) return verdict(false, null);
  for (const hash of await candidates(row, claim?.transaction ?? null)) {
    const settled = await uptoSettlementIn(hash, { owner, nonce, payTo: getAddress(row.payTo) });
    if (settled) return verdict(true, settled);
  }
  return verdict(false, null);
}
