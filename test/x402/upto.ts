// x402 `upto` payments signed by hand, so that each field can be wrong: for tests of a facilitator's
// /verify and /settle (agentbank's, or the official one of ./official.ts) and of the upto proxy itself.
import { getAddress, type Address, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { uptoPermit2WitnessTypes } from "@x402/evm";
import { PERMIT2, X402_UPTO_PROXY } from "../chain/permit2";
import { NETWORK_V2, UPTO_MAX_UNITS, USDC } from "./official";

/** A random Permit2 unordered nonce (256 bits), as @x402/evm's client makes them. */
export const randomPermit2Nonce = () => BigInt(`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}`);

/**
 * A facilitator request body (x402 v2 verify/settle) for an upto payment to `to` of at most `max` units
 * (UPTO_MAX_UNITS by default), settled by `facilitator`: the Permit2 PermitWitnessTransferFrom that
 * @x402/evm's upto client signs (domain Permit2 / chainId / the canonical Permit2 address; spender the upto
 * proxy; witness { to, facilitator, validAfter }). `paymentRequirements.amount` is the maximum (what
 * /verify checks the permit against); for /settle set it to the amount to charge. The rest of `changes`
 * makes one signed field differ from an honest payment.
 */
export async function signedUptoPayment(
  x: { chainId: number },
  account: PrivateKeyAccount,
  changes: {
    to: Address;
    facilitator: Address;
    max?: bigint;
    nonce?: bigint;
    validAfter?: bigint;
    deadline?: bigint;
    spender?: Address;
    token?: Address;
    /** What the requirements (and so `accepted`) say, when not what was signed. */
    requirements?: { payTo?: Address; amount?: bigint; asset?: Address };
  },
) {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const max = changes.max ?? UPTO_MAX_UNITS;
  const message = {
    permitted: { token: changes.token ?? USDC, amount: max },
    spender: changes.spender ?? X402_UPTO_PROXY,
    nonce: changes.nonce ?? randomPermit2Nonce(),
    deadline: changes.deadline ?? now + 60n,
    witness: { to: changes.to, facilitator: changes.facilitator, validAfter: changes.validAfter ?? 0n },
  };
  const signature: Hex = await account.signTypedData({
    domain: { name: "Permit2", chainId: x.chainId, verifyingContract: PERMIT2 },
    types: uptoPermit2WitnessTypes,
    primaryType: "PermitWitnessTransferFrom",
    message,
  });
  const permit2Authorization = {
    from: account.address,
    permitted: { token: getAddress(message.permitted.token), amount: String(max) },
    spender: getAddress(message.spender),
    nonce: String(message.nonce),
    deadline: String(message.deadline),
    witness: { to: getAddress(changes.to), facilitator: getAddress(changes.facilitator), validAfter: String(message.witness.validAfter) },
  };
  const requirements = {
    scheme: "upto",
    network: NETWORK_V2,
    asset: changes.requirements?.asset ?? USDC,
    amount: String(changes.requirements?.amount ?? max),
    payTo: changes.requirements?.payTo ?? changes.to,
    maxTimeoutSeconds: 60,
    extra: { name: "USDC", version: "2", assetTransferMethod: "permit2", facilitatorAddress: getAddress(changes.facilitator) },
  };
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirements, payload: { signature, permit2Authorization } },
    paymentRequirements: requirements,
    /** The same authorization as the upto proxy's settle takes it (settle(permit, amount, owner, witness, signature)). */
    settleArgs: (amount: bigint) =>
      [
        { permitted: message.permitted, nonce: message.nonce, deadline: message.deadline },
        amount,
        account.address,
        message.witness,
        signature,
      ] as const,
  };
}
