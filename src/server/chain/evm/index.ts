/**
 * The EVM chain as a library: settings, connection, deposit addresses, money in and
 * out, the sweep, and a local anvil node for tests and the demo. The service adapts it to its
 * `ChainAdapter` (../types.ts); nothing here touches the database.
 */
export {
  accountXpubFromMnemonic,
  DEPOSIT_ACCOUNT_PATH,
  depositAddresses,
  depositKeys,
  MAX_DEPOSIT_INDEX,
  type DepositAddresses,
  type DepositKeys,
} from './addresses.js';
export {
  ANVIL_MNEMONIC,
  anvilAvailable,
  anvilBinary,
  AnvilNotInstalledError,
  AnvilStartError,
  freeLoopbackPort,
  startAnvil,
  type AnvilNode,
  type AnvilOptions,
} from './anvil.js';
export { classifyRefusal, type BroadcastOutcome, type BroadcastResult } from './broadcast.js';
export {
  EvmChain,
  type FinalizedBlock,
  NATIVE_TRANSFER_GAS,
  type EvmChainOptions,
  type EvmToken,
  type EvmTransfer,
  type FeeQuote,
  type SignedTransaction,
  type TransactionStatus,
  type TransferCheck,
} from './chain.js';
export { connectEvmChain } from './connect.js';
export {
  checkAccountXpub,
  EvmConfigError,
  parseEvmConfig,
  parseEvmNetworks,
  SecretKey,
  type EvmConfig,
  type EvmConfigNeeds,
  type EvmConfigProblem,
} from './config.js';
export { KNOWN_CHAINS, KNOWN_NETWORKS, knownNetwork, type AddNetworkParameters, type KnownNetwork } from './networks.js';
export { EvmChainError, isRetryableChainError, type EvmErrorCode } from './errors.js';
export { createEvmRpc, LAG_BLOCKS, type CallOptions, type EvmRpc, type RpcOptions } from './rpc.js';
export { LogRangeMemory } from './scan.js';
export { connectEvmAdapter, createEvmChainAdapter, type ConnectEvmOptions } from './adapter.js';
export { sendGasFromHotWallet, sweepDeposits, type SweepEvent, type SweepOptions, type SweepReport, type SweptAddress, type SweptToken } from './sweep.js';
export { deployTestToken, mintTestToken, setTestTokenPaused, TEST_TOKEN_ABI, TEST_TOKEN_ARTIFACT, type TokenOwner } from './test-token.js';
