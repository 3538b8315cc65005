// Permit2 and x402's Permit2 proxies on a test anvil, where @x402/evm looks for them.
//
//   Permit2     0x000000000022D473030F116dDEE9F6B43aC78BA3  Uniswap's own build: the creation code that
//               @uniswap/uniswapx-sdk (npm, pinned devDependency) ships in its Permit2 contract factory,
//               deployed through the deterministic CREATE2 deployer anvil keeps at 0x4e59…956C with the
//               salt Permit2 was deployed with on every chain. CREATE2 puts it at the canonical address
//               only if the creation code is byte-identical to the deployed one, and deployPermit2 asserts
//               that address, so this is the real contract (its constructor caches chain id 84532 and that
//               domain separator, as on base-sepolia).
//   x402 proxies  upto 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002, exact 0x402085c248EeA27D92E8b30b2C58ed07f9E20001:
//               STAND-INS (test/chain/X402Permit2Proxies.sol, our code, compiled into contracts.json),
//               placed with anvil_setCode. x402 publishes these contracts in no package registry (not in
//               @x402/*, nor the x402 PyPI package, nor the x402 Rust crates, which carry ABIs only), and this
//               project commits no code taken from a public repository, so x402's own build cannot be
//               reproduced here. The stand-ins keep x402's ABI and its checks in x402's order (see the .sol
//               header); the signature, deadline and nonce checks are the real Permit2's.
import { concat, getContractAddress, maxUint256, parseAbi, parseEther, type Abi, type Address, type Hex } from "viem";
import { createWalletClient, http } from "viem";
import { dirname, join } from "node:path";
import { x402ExactPermit2ProxyAddress, x402UptoPermit2ProxyAddress } from "@x402/evm";
import contracts from "./contracts.json";
import { testActor, type Anvil } from "./anvil";

export const PERMIT2: Address = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
export const X402_UPTO_PROXY: Address = x402UptoPermit2ProxyAddress;
export const X402_EXACT_PROXY: Address = x402ExactPermit2ProxyAddress;
/** The deterministic deployment proxy (Arachnid's), which anvil has by default. */
const CREATE2_DEPLOYER: Address = "0x4e59b44847b379578588920cA78FbF26c0B4956C";
/** The salt of Permit2's deployment on every chain. */
const PERMIT2_SALT: Hex = "0x0000000000000000000000000000000000000000d3af2663da51c10215000000";

export const permit2Abi = parseAbi([
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function nonceBitmap(address owner, uint256 wordPosition) view returns (uint256)",
]);
const erc20ApproveAbi = parseAbi(["function approve(address spender, uint256 amount) returns (bool)"]);

/** Permit2's creation code as @uniswap/uniswapx-sdk ships it (its typechain factory; the package exports only its SDK). */
async function permit2CreationCode(): Promise<Hex> {
  const entry = Bun.resolveSync("@uniswap/uniswapx-sdk", import.meta.dir);
  const factory = await Bun.file(join(dirname(entry), "contracts/factories/Permit2__factory.js")).text();
  const bytecode = /const _bytecode = "(0x[0-9a-f]+)"/.exec(factory)?.[1];
  if (!bytecode) throw new Error("@uniswap/uniswapx-sdk: no Permit2 bytecode in its Permit2__factory");
  return bytecode as Hex;
}

/** Deploys Permit2 at its canonical address (see the header); throws unless the build is byte-identical. */
export async function deployPermit2(anvil: Anvil) {
  const bytecode = await permit2CreationCode();
  const expected = getContractAddress({ opcode: "CREATE2", from: CREATE2_DEPLOYER, salt: PERMIT2_SALT, bytecode });
  if (expected !== PERMIT2) throw new Error(`this Permit2 creation code would deploy at ${expected}, not ${PERMIT2}: not Uniswap's build`);
  const deployer = await anvil.client.getCode({ address: CREATE2_DEPLOYER });
  if (!deployer || deployer === "0x") throw new Error("anvil has no CREATE2 deployer (started with --no-create2?)");
  const funder = createWalletClient({ chain: anvil.chain, transport: http(anvil.rpcUrl), account: testActor(0) });
  const receipt = await anvil.receipt(await funder.sendTransaction({ to: CREATE2_DEPLOYER, data: concat([PERMIT2_SALT, bytecode]) }));
  const code = await anvil.client.getCode({ address: PERMIT2 });
  if (receipt.status !== "success" || !code || code === "0x") throw new Error("Permit2 deployment through the CREATE2 deployer failed");
}

/** Places the x402 proxy stand-ins (see the header) at @x402/evm's proxy addresses. */
export async function placeX402Permit2Proxies(anvil: Anvil) {
  const targets = [
    ["X402UptoPermit2ProxyStandIn", X402_UPTO_PROXY],
    ["X402ExactPermit2ProxyStandIn", X402_EXACT_PROXY],
  ] as const;
  for (const [name, target] of targets) {
    const deployed = await anvil.deploy(name, [PERMIT2]);
    // PERMIT2 is an immutable, so it travels with the runtime code.
    const code = await anvil.client.getCode({ address: deployed });
    await anvil.client.request({ method: "anvil_setCode" as never, params: [target, code] as never });
    const permit2 = await anvil.client.readContract({ address: target, abi: contracts[name].abi as Abi, functionName: "PERMIT2" });
    if (permit2 !== PERMIT2) throw new Error(`${name} at ${target} does not point at Permit2`);
  }
}

/**
 * `owner` approves Permit2 to move its `token` (max by default): what a payer must have done once before
 * any Permit2 payment (exact-Permit2 or upto) can settle. Sent as `owner` through anvil's impersonation, so
 * it works for any address (an agent's, whose key the service holds); the owner's ETH balance is restored
 * afterwards, so gas does not show in its balance.
 */
export async function approvePermit2(anvil: Anvil, owner: Address, token: Address, amount: bigint = maxUint256) {
  const rpc = (method: string, params: unknown[]) => anvil.client.request({ method: method as never, params: params as never });
  const balance = await anvil.client.getBalance({ address: owner });
  await rpc("anvil_setBalance", [owner, `0x${(balance + parseEther("1")).toString(16)}`]);
  await rpc("anvil_impersonateAccount", [owner]);
  try {
    const wallet = createWalletClient({ chain: anvil.chain, transport: http(anvil.rpcUrl), account: owner });
    const receipt = await anvil.receipt(await wallet.writeContract({ address: token, abi: erc20ApproveAbi, functionName: "approve", args: [PERMIT2, amount] }));
    if (receipt.status !== "success") throw new Error(`approve(Permit2) by ${owner} reverted`);
  } finally {
    await rpc("anvil_stopImpersonatingAccount", [owner]);
    await rpc("anvil_setBalance", [owner, `0x${balance.toString(16)}`]);
  }
}

/** Whether Permit2 has used `owner`'s unordered nonce (its nonceBitmap: word nonce >> 8, bit nonce & 0xff). */
export async function permit2NonceUsed(anvil: Anvil, owner: Address, nonce: bigint | string) {
  const value = BigInt(nonce);
  const word = await anvil.client.readContract({ address: PERMIT2, abi: permit2Abi, functionName: "nonceBitmap", args: [owner, value >> 8n] });
  return ((word >> (value & 0xffn)) & 1n) === 1n;
}
