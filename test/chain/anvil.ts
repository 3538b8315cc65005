// A real local EVM for the chain tests: anvil from npm on a free port, the test USDC deployed by a
// funder account, and an RPC proxy in front of it that can go down or refuse broadcasts.
import { join } from "node:path";
import { createPublicClient, createWalletClient, http, parseUnits, type Abi, type Address, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { anvil as anvilChain } from "viem/chains";
import contracts from "./contracts.json";

const ANVIL = join(import.meta.dir, "../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
/** anvil's default mnemonic: the service's treasury (index 0) is anvil's first account. */
export const TEST_MNEMONIC = "test test test test test test test test test test test junk";

/** A port nobody listens on right now (anvil block-buffers its banner, so it cannot tell us its own). */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

export async function startAnvil() {
  const port = freePort();
  const proc = Bun.spawn([ANVIL, "--port", String(port), "--host", "127.0.0.1"], { stdout: "ignore", stderr: "ignore" });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${port}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    }).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error("anvil did not start");
    await Bun.sleep(50);
  }
  const rpcUrl = `http://127.0.0.1:${port}`;
  const chain = { ...anvilChain, rpcUrls: { default: { http: [rpcUrl] } } };
  const client = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 });
  // anvil's second account deploys and sends test transfers, so the treasury's nonces are the service's alone.
  const funder = createWalletClient({ chain, transport: http(rpcUrl), account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 1 }) });

  const deploy = async (name: "TestUSDC" | "TestAggregator", args: unknown[] = []) => {
    const contract = contracts[name];
    const hash = await funder.deployContract({ abi: contract.abi, bytecode: contract.bytecode as Hex, args });
    const receipt = await client.waitForTransactionReceipt({ hash });
    return receipt.contractAddress!;
  };
  const usdc = await deploy("TestUSDC");
  const usdcAbi = contracts.TestUSDC.abi;
  const send = async (functionName: string, args: unknown[], address: Address = usdc, abi: Abi = usdcAbi as Abi) => {
    const hash = await funder.writeContract({ address, abi, functionName, args });
    return client.waitForTransactionReceipt({ hash });
  };

  return {
    rpcUrl,
    chainId: anvilChain.id,
    usdc,
    client,
    deploy,
    send,
    mint: (to: Address, amount: string) => send("mint", [to, parseUnits(amount, 6)]),
    /** Sets a TestAggregator's latest round. */
    setFeedAnswer: (feed: Address, answer: bigint, updatedAt: bigint) => send("setAnswer", [answer, updatedAt], feed, contracts.TestAggregator.abi as Abi),
    /** A USDC call signed by another account of the test mnemonic (index 0 is the service's treasury). */
    sendAs: async (index: number, functionName: string, args: unknown[]) => {
      const wallet = createWalletClient({ chain, transport: http(rpcUrl), account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index }) });
      const hash = await wallet.writeContract({ address: usdc, abi: usdcAbi, functionName, args });
      return client.waitForTransactionReceipt({ hash });
    },
    /** A transfer from the funder (who mints to itself first). */
    transfer: async (to: Address, amount: string) => {
      await send("mint", [funder.account.address, parseUnits(amount, 6)]);
      return send("transfer", [to, parseUnits(amount, 6)]);
    },
    balanceOf: async (address: Address) =>
      (await client.readContract({ address: usdc, abi: usdcAbi, functionName: "balanceOf", args: [address] })) as bigint,
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
