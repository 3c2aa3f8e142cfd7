/**
 * The sandbox chain: a stand-in for a real network that moves no funds. Everything it produces is
 * clearly marked as sandbox data (`sandbox: true` on transfers and payouts).
 *
 * - Deposit addresses are derived from the session id (keccak-256), so they are distinct per
 *   session and stable across instances (the deposit index the service allocates is not needed).
 * - Incoming transfers exist only when simulated (`simulateIncomingTransfer`, behind
 *   `POST /v1/checkout/sessions/{id}/simulate-payment`); a simulated hash is random unless given.
 * - Payout hashes are `0x` + keccak-256 of `paylink-sandbox-payout:<withdrawal id>`: the same
 *   withdrawal always yields the same hash, so a retried payout is recognisably the same payout.
 * - Payouts fail on purpose for the addresses in `failingAddresses` (default
 *   `SANDBOX_FAILING_ADDRESS`, plus the comma list in env `PAYLINK_SANDBOX_FAIL_ADDRESSES`), or
 *   when the `failPayout` rule returns a reason. That is how tests and demos exercise the
 *   failure path (the funds go back to the balance).
 * - A payout takes `payoutDelayMs` (env `PAYLINK_SANDBOX_PAYOUT_DELAY_MS`, default 0): a chain's latency,
 *   so that a rehearsal of a restart or a crash finds payouts in flight.
 */
import { randomBytes } from 'node:crypto';
import { checkEvmAddress, keccakHex } from '../evm/address.js';
import { KNOWN_NETWORKS } from '../evm/networks.js';
import { PayoutError, type PayoutRequest } from '../money-out.js';
import type { Network } from '../network.js';
import type { SandboxChainAdapter } from '../types.js';

/**
 * BNB Smart Chain as the sandbox offers it (no real tokens): its default network. The sandbox plays
 * EVM networks (their names, EIP-55 deposit addresses), so it borrows the EVM family's table and
 * address rules.
 */
export const BSC: Network = {
  id: 'bsc',
  name: KNOWN_NETWORKS.bsc!.name,
  aliases: [...KNOWN_NETWORKS.bsc!.aliases],
  assets: ['USDT', 'CNGN'],
};

/** A payout to this address always fails on the sandbox chain. */
export const SANDBOX_FAILING_ADDRESS = '0x000000000000000000000000000000000000fa11';

export interface SandboxChainOptions {
  networks?: Network[];
  /** Addresses (any case) whose payouts fail. Default: `SANDBOX_FAILING_ADDRESS` and the env list. */
  failingAddresses?: string[];
  /** A custom failure rule: return a reason to fail the payout, or null to let it succeed. */
  failPayout?: (request: PayoutRequest) => string | null;
  /** Simulated network latency of a payout, in ms (default `PAYLINK_SANDBOX_PAYOUT_DELAY_MS`, else 0). */
  payoutDelayMs?: number;
}

/** The sandbox transaction hash of a withdrawal's payout. */
export function sandboxPayoutHash(withdrawalId: string): string {
  return `0x${keccakHex(`paylink-sandbox-payout:${withdrawalId}`)}`;
}

/** The sandbox chain: a `ChainAdapter` whose payouts are direct and whose transfers are simulated. */
export type SandboxChain = SandboxChainAdapter;

/** A sandbox chain: credits simulated transfers at once and pays out without moving anything. */
export function createSandboxChain(options: SandboxChainOptions = {}): SandboxChain {
  const networks = options.networks ?? [BSC];
  const envFailing = (process.env.PAYLINK_SANDBOX_FAIL_ADDRESSES ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const failing = new Set((options.failingAddresses ?? [SANDBOX_FAILING_ADDRESS, ...envFailing]).map((a) => a.toLowerCase()));
  const envDelay = Number(process.env.PAYLINK_SANDBOX_PAYOUT_DELAY_MS ?? 0);
  const payoutDelayMs = options.payoutDelayMs ?? (Number.isFinite(envDelay) && envDelay > 0 ? envDelay : 0);
  return {
    kind: 'sandbox',
    sandbox: true,
    networks,
    async depositAddress({ sessionId, blockchainId, assetId }) {
      const hash = keccakHex(`paylink-sandbox-deposit:${blockchainId}:${assetId}:${sessionId}`);
      const check = checkEvmAddress(`0x${hash.slice(-40)}`);
      if (!check.ok) throw new Error('unreachable: a derived address is always well-formed');
      return check.address;
    },
    async sendPayout(request) {
      if (payoutDelayMs) await new Promise((resolve) => setTimeout(resolve, payoutDelayMs));
      if (failing.has(request.address.toLowerCase())) throw new PayoutError('Sandbox: payouts to this address always fail (a test address)');
      const reason = options.failPayout?.(request);
      if (reason) throw new PayoutError(reason);
      return { txHash: sandboxPayoutHash(request.withdrawalId), sandbox: true };
    },
    async simulateIncomingTransfer({ blockchainId, assetId, toAddress, amount, txHash }) {
      return {
        blockchainId,
        assetId,
        toAddress,
        amount,
        txHash: (txHash ?? `0x${randomBytes(32).toString('hex')}`).toLowerCase(),
        sandbox: true,
      };
    },
  };
}
