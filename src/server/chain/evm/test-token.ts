/**
 * The test ERC-20 (scripts/test-token.sol, compiled into ./test-token.json): what the tests and
 * the demo deploy on a local chain to stand for USDT (18 decimals, as on BSC) and cNGN (6). Never
 * a real token: its owner can mint at will and pause every transfer (to make a payout revert).
 */
import { createWalletClient, getAddress, http, parseAbi, type Account, type Address, type Hash, type Hex, type PublicClient } from 'viem';
import feeArtifact from './fee-test-token.json' with { type: 'json' };
import artifact from './test-token.json' with { type: 'json' };

/** The test token's ABI, typed (the artifact's JSON ABI says the same; a test checks that). */
export const TEST_TOKEN_ABI = parseAbi([
  'constructor(string name_, string symbol_, uint8 decimals_)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function owner() view returns (address)',
  'function totalSupply() view returns (uint256)',
  'function transfersPaused() view returns (bool)',
  'function balanceOf(address) view returns (uint256)',
  'function allowance(address, address) view returns (uint256)',
  'function mint(address to, uint256 value)',
  'function setTransfersPaused(bool paused)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function transferBatch(address[] to, uint256[] values) returns (bool)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
]);

/** The compiled artifact: the JSON ABI and creation bytecode, with the compiler that made them. */
export const TEST_TOKEN_ARTIFACT = artifact as { contractName: string; compiler: string; evmVersion: string; abi: unknown[]; bytecode: Hex };

/** Who deploys and owns test tokens: a local account, or an address the node has unlocked (anvil's dev accounts). */
export interface TokenOwner {
  /** The node's JSON-RPC URL (http). */
  rpcUrl: string;
  from: Account | Address;
  /** Reads receipts; the same node. */
  client: PublicClient;
}

function wallet(owner: TokenOwner) {
  return createWalletClient({ account: owner.from, transport: http(owner.rpcUrl) });
}

/**
 * A gas price for chains without a base fee (pre-London), where anvil would otherwise fill in
 * EIP-1559 fees for an unlocked account and then refuse them; nothing on other chains.
 */
async function legacyFees(owner: TokenOwner): Promise<{ gasPrice?: bigint }> {
  const block = await owner.client.getBlock();
  return block.baseFeePerGas === null ? { gasPrice: await owner.client.getGasPrice() } : {};
}

async function mined(owner: TokenOwner, hash: Hash): Promise<Hash> {
  const receipt = await owner.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  return hash;
}

/** Deploys a test token and resolves with its address once the deployment is mined. */
export async function deployTestToken(owner: TokenOwner, token: { name: string; symbol: string; decimals: number }): Promise<Address> {
  const hash = await wallet(owner).deployContract({
    abi: TEST_TOKEN_ABI,
    bytecode: TEST_TOKEN_ARTIFACT.bytecode,
    args: [token.name, token.symbol, token.decimals],
    chain: null,
    ...(await legacyFees(owner)),
  });
  const receipt = await owner.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${token.symbol} failed (${hash})`);
  return getAddress(receipt.contractAddress);
}

/** Mints `units` (the token's smallest units) to `to`; resolves with the mined transaction's hash. */
export async function mintTestToken(owner: TokenOwner, token: Address, to: Address, units: bigint): Promise<Hash> {
  return mined(
    owner,
    await wallet(owner).writeContract({
      address: token,
      abi: TEST_TOKEN_ABI,
      functionName: 'mint',
      args: [to, units],
      chain: null,
      ...(await legacyFees(owner)),
    }),
  );
}

/** Pauses (or resumes) every transfer of a test token: a paused token's transfers revert. */
export async function setTestTokenPaused(owner: TokenOwner, token: Address, paused: boolean): Promise<Hash> {
  return mined(
    owner,
    await wallet(owner).writeContract({
      address: token,
      abi: TEST_TOKEN_ABI,
      functionName: 'setTransfersPaused',
      args: [paused],
      chain: null,
      ...(await legacyFees(owner)),
    }),
  );
}

/** The fee-charging test token (scripts/fee-test-token.sol): each transfer delivers its value less `feeBps`/10,000, the fee going to the owner. */
export const FEE_TEST_TOKEN_ABI = parseAbi([
  'constructor(string name_, string symbol_, uint8 decimals_, uint16 feeBps_)',
  'function decimals() view returns (uint8)',
  'function feeBps() view returns (uint16)',
  'function balanceOf(address) view returns (uint256)',
  'function mint(address to, uint256 value)',
  'function transfer(address to, uint256 value) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

/** Deploys a fee-charging test token (for tests of what a payout's recipient really received). */
export async function deployFeeTestToken(owner: TokenOwner, token: { name: string; symbol: string; decimals: number; feeBps: number }): Promise<Address> {
  const hash = await wallet(owner).deployContract({
    abi: FEE_TEST_TOKEN_ABI,
    bytecode: (feeArtifact as { bytecode: Hex }).bytecode,
    args: [token.name, token.symbol, token.decimals, token.feeBps],
    chain: null,
    ...(await legacyFees(owner)),
  });
  const receipt = await owner.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${token.symbol} failed (${hash})`);
  return getAddress(receipt.contractAddress);
}
