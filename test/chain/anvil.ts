// A real local EVM for the chain tests: anvil from npm on a free port, the test USDC deployed by a
// funder account, and an RPC proxy in front of it that can go down or refuse broadcasts.
import { join } from "node:path";
import { createPublicClient, createWalletClient, http, parseUnits, TransactionReceiptNotFoundError, type Abi, type Address, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { anvil as anvilChain } from "viem/chains";
import contracts from "./contracts.json";

const ANVIL = join(import.meta.dir, "../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
/** anvil's default mnemonic: the service's treasury (index 0) is anvil's first account. */
export const TEST_MNEMONIC = "test test test test test test test test test test test junk";
/** Gas money startAnvil gives each test actor: 100 ETH. */
const ACTOR_ETH = "0x56bc75e2d63100000";
const ACTORS = 4;

/**
 * The tests' own accounts on chain (the funder, an outside facilitator, an attacker, an operator's cold
 * wallet): m/44'/60'/2'/0/n of the test mnemonic, a BIP-44 account no agentbank key uses. anvil's own
 * funded accounts (m/44'/60'/0'/0/n) are the service's keys (index 0 the treasury, 1… agents' deposit
 * addresses), so an account of theirs that moves USDC would be a deposit address that spends — which the
 * custody check rightly reports. startAnvil gives each actor ETH for gas.
 */
export const testActor = (n: number) => mnemonicToAccount(TEST_MNEMONIC, { accountIndex: 2, addressIndex: n });

/** anvil on a free port (--port 0): its banner's `Listening on` line names it; stdout is drained after. */
async function spawnAnvil(chainId?: number) {
  const args = [ANVIL, "--port", "0", "--host", "127.0.0.1", ...(chainId === undefined ? [] : ["--chain-id", String(chainId)])];
  const proc = Bun.spawn(args, { stdout: "pipe", stderr: "ignore" });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const timer = setTimeout(() => proc.kill(), 10_000);
  let banner = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`anvil did not start:\n${banner}`);
    banner += decoder.decode(value, { stream: true });
    const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(banner);
    if (match) {
      clearTimeout(timer);
      void (async () => {
        while (!(await reader.read()).done);
      })();
      return { proc, port: Number(match[1]) };
    }
  }
}

/** `chainId` (default anvil's 31337) lets a test pose as a named network, e.g. 84532 for base-sepolia. */
export async function startAnvil(options: { chainId?: number } = {}) {
  const { proc, port } = await spawnAnvil(options.chainId);
  const rpcUrl = `http://127.0.0.1:${port}`;
  const chainId = options.chainId ?? anvilChain.id;
  const chain = { ...anvilChain, id: chainId, rpcUrls: { default: { http: [rpcUrl] } } };
  const client = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 });
  /**
   * A transaction's receipt, asked for until anvil has it. Not viem's waitForTransactionReceipt: anvil
   * answers eth_sendRawTransaction before the receipt exists (a third of the time here), and when viem then
   * sees the transaction mined but no receipt yet, it waits for the next block — which an automining
   * chain makes only at the next transaction. On a quiet chain that wait lasted until the test timed out.
   */
  const receipt = async (hash: Hex, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await client.getTransactionReceipt({ hash }).catch((error) => {
        if (error instanceof TransactionReceiptNotFoundError) return null;
        throw error;
      });
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`anvil: no receipt for ${hash} after ${timeoutMs} ms`);
      await Bun.sleep(10);
    }
  };
  for (let n = 0; n < ACTORS; n++) await client.request({ method: "anvil_setBalance" as never, params: [testActor(n).address, ACTOR_ETH] as never });
  // A test actor deploys and sends test transfers, so the treasury's nonces are the service's alone.
  const funder = createWalletClient({ chain, transport: http(rpcUrl), account: testActor(0) });

  const deploy = async (name: keyof typeof contracts, args: unknown[] = []) => {
    const contract = contracts[name];
    const hash = await funder.deployContract({ abi: contract.abi, bytecode: contract.bytecode as Hex, args });
    return (await receipt(hash)).contractAddress!;
  };
  const usdc = await deploy("TestUSDC");
  const usdcAbi = contracts.TestUSDC.abi;
  const send = async (functionName: string, args: unknown[], address: Address = usdc, abi: Abi = usdcAbi as Abi) => {
    return receipt(await funder.writeContract({ address, abi, functionName, args }));
  };

  return {
    rpcUrl,
    chainId,
    chain,
    usdc,
    client,
    receipt,
    deploy,
    send,
    mint: (to: Address, amount: string) => send("mint", [to, parseUnits(amount, 6)]),
    /** Sets a TestAggregator's latest round. */
    setFeedAnswer: (feed: Address, answer: bigint, updatedAt: bigint) => send("setAnswer", [answer, updatedAt], feed, contracts.TestAggregator.abi as Abi),
    /** A USDC call signed by the service's treasury (the test mnemonic's index 0), as an operator would by hand. */
    sendAsTreasury: async (functionName: string, args: unknown[]) => {
      const wallet = createWalletClient({ chain, transport: http(rpcUrl), account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 0 }) });
      return receipt(await wallet.writeContract({ address: usdc, abi: usdcAbi, functionName, args }));
    },
    /** A transfer from the funder (who mints to itself first). */
    transfer: async (to: Address, amount: string) => {
      await send("mint", [funder.account.address, parseUnits(amount, 6)]);
      return send("transfer", [to, parseUnits(amount, 6)]);
    },
    balanceOf: async (address: Address) =>
      (await client.readContract({ address: usdc, abi: usdcAbi, functionName: "balanceOf", args: [address] })) as bigint,
    /** evm_snapshot / evm_revert: reverting drops the blocks mined since, as a reorg of the tail does. */
    snapshot: () => client.request({ method: "evm_snapshot" as never }) as Promise<Hex>,
    revert: (id: Hex) => client.request({ method: "evm_revert" as never, params: [id] as never }),
    mine: (blocks = 1) => client.request({ method: "anvil_mine" as never, params: [`0x${blocks.toString(16)}`] as never }),
    transferLogs: (to: Address) =>
      client.getContractEvents({ address: usdc, abi: usdcAbi, eventName: "Transfer", args: { to }, fromBlock: 0n }),
    stop: () => proc.kill(),
  };
}

export type Anvil = Awaited<ReturnType<typeof startAnvil>>;

/** A JSON-RPC proxy in front of anvil: "up", "down" (every call fails) or "no-broadcast". */
export function startRpcProxy(target: string) {
  let mode: "up" | "down" | "no-broadcast" = "up";
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = await request.text();
      if (mode === "down") return new Response("unavailable", { status: 503 });
      if (mode === "no-broadcast" && body.includes("eth_sendRawTransaction")) return new Response("unavailable", { status: 503 });
      const response = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
      return new Response(await response.text(), { status: response.status, headers: { "content-type": "application/json" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    set: (next: typeof mode) => (mode = next),
    stop: () => server.stop(true),
  };
}
