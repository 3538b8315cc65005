// The treasury's one Permit2 allowance (USDC.approve(Permit2, max)), before its first upto permit.
// Permit2 pulls the treasury's USDC through that ERC-20 allowance; the transaction is sent like a
// withdrawal's: signed with the next treasury nonce and STORED before it is broadcast, so it is never
// signed twice.
import { encodeFunctionData, erc20Abi, keccak256, maxUint256, type Hex } from "viem";
import { exclusive, read, write } from "../db";
import { getSetting, setSetting } from "../db/settings";
import { ApiError } from "../errors";
import { chainSettings, publicClient } from "./client";
import { treasuryAccount } from "./keys";
import { PERMIT2_ADDRESS, permit2Allowance } from "./permit2";
import { broadcast, nextTreasuryNonce, takeTreasuryNonce, TREASURY_SENDER } from "./sender";
import { signTreasuryCall } from "./treasury-call";

/** The approval transaction, once signed: kept so that a restart re-sends it instead of signing another. */
const APPROVAL_KEY = "permit2_approval_tx";
/** How long a payment waits for the approval to be mined before it is refused (try again). */
const APPROVAL_WAIT_MS = 30_000;
const APPROVE_GAS = 100_000n;

const treasuryAllowance = () => permit2Allowance(treasuryAccount().address);

/** Under TREASURY_SENDER: the stored approval transaction, signed now if there is none; broadcast (again). */
async function sendApproval(): Promise<void> {
  let raw = (await read(getSetting(APPROVAL_KEY))) as Hex | null;
  if (raw === null) {
    const nonce = await nextTreasuryNonce();
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [PERMIT2_ADDRESS, maxUint256] });
    const { raw: signed } = await signTreasuryCall({ to: chainSettings().usdcAddress, data, gas: APPROVE_GAS }, nonce);
    raw = await write(function* () {
      const stored = (yield* getSetting(APPROVAL_KEY, true)) as Hex | null;
      if (stored !== null) return stored;
      yield* setSetting(APPROVAL_KEY, signed);
      yield* takeTreasuryNonce(nonce);
      return signed;
    });
  }
  await broadcast(raw);
}

/**
 * Before the treasury signs an upto permit for `maximum`: Permit2 may move that much of its USDC. The
 * one approval (USDC.approve(Permit2, max)) is sent the first time, and waited for; a mined approval
 * that does not allow it (reverted) is never sent again: the operator's to look at (503 meanwhile).
 */
export async function approvePermit2(maximum: bigint): Promise<void> {
  if ((await treasuryAllowance()) >= maximum) return;
  const stored = (await read(getSetting(APPROVAL_KEY))) as Hex | null;
  if (stored !== null && (await publicClient().getTransactionReceipt({ hash: keccak256(stored) }).catch(() => null))) {
    throw new ApiError("CHAIN_UNAVAILABLE", `the treasury's Permit2 approval (${keccak256(stored)}) was mined but does not allow ${maximum} base units: the operator must look at it`);
  }
  await exclusive(TREASURY_SENDER, APPROVAL_WAIT_MS, sendApproval);
  const until = Date.now() + APPROVAL_WAIT_MS;
  while ((await treasuryAllowance()) < maximum) {
    if (Date.now() > until) throw new ApiError("CHAIN_UNAVAILABLE", "the treasury's Permit2 approval is not mined yet: try again shortly");
    await Bun.sleep(500);
  }
}
