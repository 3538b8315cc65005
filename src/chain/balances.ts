// USDC balances of many addresses at one block, for the custody check (the treasury's, the internal
// signer's and every deposit address's). Through Multicall3 when the chain has it at that block: one
// eth_call per MULTICALL_CHUNK addresses; otherwise JSON-RPC batches: one HTTP request carrying
// RPC_BATCH_SIZE eth_calls. Chunks go one after another, so N addresses cost ⌈N/500⌉ eth_calls (⌈N/100⌉
// requests without Multicall3) plus the one that looks for Multicall3 — never N requests at once.
import { erc20Abi, type Address } from "viem";
import { batchingClient, chainSettings, publicClient, RPC_BATCH_SIZE } from "./client";

/** Multicall3's address, the same on every chain that has it (deployed by one keyless transaction). */
export const MULTICALL3: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";
/** balanceOf calls per Multicall3 eth_call: ~5,000 gas each on USDC, ~2.5M gas a call, far below RPC gas caps. */
const MULTICALL_CHUNK = 500;

export type BalanceRead = { balances: bigint[]; via: "multicall3" | "json-rpc-batch"; requests: number };

export async function usdcBalancesAt(addresses: Address[], blockNumber: bigint): Promise<BalanceRead> {
  const usdc = chainSettings().usdcAddress;
  const code = await publicClient().getCode({ address: MULTICALL3, blockNumber });
  const multicall = code !== undefined && code !== "0x";
  const balanceOf = (address: Address) => ({ address: usdc, abi: erc20Abi, functionName: "balanceOf" as const, args: [address] as const });
  const size = multicall ? MULTICALL_CHUNK : RPC_BATCH_SIZE;
  const balances: bigint[] = [];
  let requests = 1;
  for (let start = 0; start < addresses.length; start += size, requests++) {
    const chunk = addresses.slice(start, start + size);
    if (multicall) {
      // batchSize 0: the whole chunk in one eth_call (viem would otherwise split it and send the parts at once).
      balances.push(...(await publicClient().multicall({ contracts: chunk.map(balanceOf), blockNumber, multicallAddress: MULTICALL3, allowFailure: false, batchSize: 0 })));
    } else {
      const client = batchingClient();
      balances.push(...(await Promise.all(chunk.map((address) => client.readContract({ ...balanceOf(address), blockNumber })))));
    }
  }
  return { balances, via: multicall ? "multicall3" : "json-rpc-batch", requests };
}
