/**
 * The hot wallet held against what the payouts owe, per network: its balance of each asset against
 * what the pending and processing withdrawals of that asset still have to send (those whose
 * transaction is not mined yet), and its gas money against `*_MIN_GAS` (default: 20 transfers at the
 * current fee). Short of either, the network's `hot_wallet_low` alert is raised (once, then refreshed
 * while it holds; the admin shows it) and one `hot_wallet_low` line is logged with what the wallet
 * holds and what it needs; topped up, the alert is cleared (`hot_wallet_low_cleared`).
 *
 * The payouts the hot wallet cannot pay wait, each saying why (`hot_wallet_gas`, `hot_wallet_token`).
 * One found so before anything was signed for it waits `pending`, out of the claims (./store.ts); a
 * check lets such payouts go again, oldest first, as far as the wallet now covers them (the tokens of
 * each, and one transfer's gas each, beside what the payouts already under way owe), so once topped
 * up they go out by themselves, each once.
 *
 * The payout worker runs the check every `PAYLINK_EVM_RECONCILE_S`, whenever a payout starts or stops
 * waiting for the hot wallet, and, while payouts are held, every `holdingsRecheckMs`.
 */
import type { AssetId } from '../../../core/money.js';
import { compareDecimal, fromUnits, roundDown, toUnits } from '../../../core/money.js';
import type { StalledReason } from '../../../core/schemas.js';
import type { ChainAdapter, HotWalletHoldings, OutgoingChain } from '../../chain/types.js';
import type { Database } from '../../db/index.js';
import { defaultLogger, type Logger } from '../../log.js';
import { runtimeMetrics } from '../../metrics/runtime.js';
import { clearAlert, raiseAlert } from '../alerts/index.js';
import { countWaitingForHotWallet, heldForHotWallet } from '../withdrawals/index.js';
import { owedByPayouts } from './repository.js';
import { logWait, Stalls } from './waits.js';

/** What the check works with. */
export interface HotWalletDeps {
  db: Database;
  chain: ChainAdapter;
  now: () => Date;
  log?: Logger | undefined;
}

/** What a check found on one network. */
export interface HotWalletCheck {
  /** The gas money is under the floor. */
  gasShort: boolean;
  /** The assets the hot wallet holds less of than the payouts owe. */
  tokensShort: AssetId[];
  /** Payouts still waiting for the hot wallet after the check (held, or signed and refused for gas). */
  waiting: number;
  /** Payouts the check let go. */
  released: number;
}

/** Token amounts are compared in units of 10^-18 (every asset's payouts have at most 6 decimals; a balance's extra digits round down). */
const DIGITS = 18;
const units = (amount: string) => toUnits(roundDown(amount, DIGITS), DIGITS);

/** `wei` in the coin's units, readable: at most 8 decimals, trailing zeros dropped. */
export function coinAmount(wei: bigint, decimals: number): string {
  return trimmed(roundDown(fromUnits(wei, decimals), 8));
}

const trimmed = (amount: string) => (amount.includes('.') ? amount.replace(/\.?0+$/, '') : amount);

/** A short form of an address for a person: `0x7099…79C8`. */
const shortAddress = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

/**
 * Holds the hot wallet of `outgoing`'s network against what its payouts owe (see the file's comment):
 * raises, refreshes or clears `hot_wallet_low`, and lets the payouts it now covers go.
 */
export async function checkHotWallet(deps: HotWalletDeps, outgoing: OutgoingChain): Promise<HotWalletCheck> {
  const log = deps.log ?? defaultLogger;
  const blockchainId = outgoing.blockchainId;
  const network = deps.chain.networks.find((n) => n.id === blockchainId);
  const [owedRows, held] = await Promise.all([owedByPayouts(deps.db, blockchainId), heldForHotWallet(deps.db, blockchainId)]);
  const assets = [...new Set<AssetId>([...(network?.assets ?? []), ...owedRows.map((row) => row.asset_id)])];
  const [holdings, gas] = await Promise.all([outgoing.holdings(assets), outgoing.gasFloor()]);
  // What it holds, for /metrics (paylink_hot_wallet_*): the same figures the alert is judged on.
  runtimeMetrics.hotWalletNativeBalance(blockchainId, fromUnits(holdings.native, outgoing.nativeCurrency.decimals));
  for (const assetId of assets) runtimeMetrics.hotWalletTokenBalance(blockchainId, assetId, holdings.tokens[assetId] ?? '0');

  const owed = new Map(owedRows.map((row) => [row.asset_id, row]));
  const gasShort = holdings.native < gas.floor;
  const tokensShort = assets.filter((assetId) => {
    const due = owed.get(assetId);
    return due !== undefined && compareDecimal(holdings.tokens[assetId] ?? '0', due.owed) < 0;
  });

  // What the payouts under way (not held) still need, then the held ones in turn, oldest first.
  const heldIds = new Set(held.map((row) => row.id));
  const tokensLeft = new Map<AssetId, bigint>();
  for (const assetId of assets) {
    const heldAmount = held.filter((row) => row.asset_id === assetId).reduce((sum, row) => sum + units(row.amount), 0n);
    const due = owed.get(assetId);
    tokensLeft.set(assetId, units(holdings.tokens[assetId] ?? '0') - (due ? units(due.owed) - heldAmount : 0n));
  }
  const underWay = owedRows.reduce((sum, row) => sum + row.payouts, 0) - heldIds.size;
  let gasLeft = holdings.native - BigInt(Math.max(0, underWay)) * gas.perTransfer;
  const stalls = new Stalls();
  let released = 0;
  for (const row of held) {
    const left = tokensLeft.get(row.asset_id) ?? 0n;
    const amount = units(row.amount);
    const reason: StalledReason | null = amount > left ? 'hot_wallet_token' : gas.perTransfer > gasLeft ? 'hot_wallet_gas' : null;
    if (reason === null) {
      tokensLeft.set(row.asset_id, left - amount);
      gasLeft -= gas.perTransfer;
      released++;
    }
    stalls.set(row.id, row.stalled_reason, reason);
  }
  await stalls.flush(deps.db, deps.now());

  // Those still held, and those signed that a node refused for want of gas.
  const waiting = await countWaitingForHotWallet(deps.db, blockchainId);
  if (gasShort || tokensShort.length > 0) {
    const shortfall = describeShortfall(outgoing, network?.name ?? blockchainId, holdings, gas.floor, gasShort, tokensShort, owed, waiting);
    const raised = await raiseAlert(deps.db, { blockchainId, code: 'hot_wallet_low', message: shortfall.message, detail: shortfall.detail }, deps.now());
    if (raised) {
      // An error where payouts wait, or will (the tokens do not cover what they owe); a warning where
      // only the gas money is under its floor and every payout still goes.
      log[waiting > 0 || tokensShort.length > 0 ? 'error' : 'warn']('hot_wallet_low', `the hot wallet holds less than the payouts need: ${shortfall.message}`, {
        blockchainId,
        address: outgoing.hotWallet,
        holds: shortfall.holds,
        needs: shortfall.needs,
        waiting,
      });
    }
  } else if (await clearAlert(deps.db, blockchainId, 'hot_wallet_low')) {
    log.info('hot_wallet_low_cleared', 'the hot wallet holds what the payouts need again', {
      blockchainId,
      address: outgoing.hotWallet,
      holds: holdingsText(outgoing, holdings, assets),
    });
  }
  return { gasShort, tokensShort, waiting, released };
}

/** What the hot wallet holds, for a person: `0.5 BNB, 1000 USDT`. */
function holdingsText(outgoing: OutgoingChain, holdings: HotWalletHoldings, assets: readonly AssetId[]): string {
  const coin = outgoing.nativeCurrency;
  return [
    `${coinAmount(holdings.native, coin.decimals)} ${coin.symbol}`,
    ...assets.map((assetId) => `${trimmed(holdings.tokens[assetId] ?? '0')} ${assetId}`),
  ].join(', ');
}

/** The alert's message and detail, and the log line's `holds` and `needs` (the hot wallet's own figures, nothing of a customer). */
function describeShortfall(
  outgoing: OutgoingChain,
  networkName: string,
  holdings: HotWalletHoldings,
  floor: bigint,
  gasShort: boolean,
  tokensShort: readonly AssetId[],
  owed: ReadonlyMap<AssetId, { owed: string; payouts: number }>,
  waiting: number,
) {
  const coin = outgoing.nativeCurrency;
  const parts: string[] = [];
  const holds: string[] = [];
  const needs: string[] = [];
  if (gasShort) {
    const has = `${coinAmount(holdings.native, coin.decimals)} ${coin.symbol}`;
    const wants = `${coinAmount(floor, coin.decimals)} ${coin.symbol}`;
    parts.push(`${has} of gas money, under the ${wants} it should keep`);
    holds.push(has);
    needs.push(wants);
  }
  for (const assetId of tokensShort) {
    const has = `${trimmed(holdings.tokens[assetId] ?? '0')} ${assetId}`;
    const wants = `${trimmed(owed.get(assetId)!.owed)} ${assetId}`;
    parts.push(`${has}, under the ${wants} that payouts owe`);
    holds.push(has);
    needs.push(wants);
  }
  const then =
    waiting > 0
      ? `${waiting} withdrawal${waiting === 1 ? '' : 's'} wait${waiting === 1 ? 's' : ''} until it is topped up`
      : tokensShort.length > 0
        ? 'withdrawals wait until it is topped up'
        : 'top it up before withdrawals have to wait';
  const message = `The hot wallet ${shortAddress(outgoing.hotWallet)} on ${networkName} holds ${parts.join('; and ')}: ${then}.`;
  const detail = {
    address: outgoing.hotWallet,
    native: holdings.native.toString(),
    nativeFloor: floor.toString(),
    tokens: Object.fromEntries(tokensShort.map((assetId) => [assetId, { balance: holdings.tokens[assetId] ?? '0', owed: owed.get(assetId)!.owed }])),
    waiting,
  };
  return { message, detail, holds: holds.join(', '), needs: needs.join(', ') };
}

/**
 * When each network's hot wallet is next held against what it owes: every `reconcileMs` (the network's
 * `PAYLINK_EVM_RECONCILE_S`), at once after a payout started or stopped waiting for it (`soon`), and
 * every `recheckMs` while payouts are held for it. One per worker.
 */
export interface HotWalletWatch {
  /** Check `blockchainId` at the next `due()`. */
  soon(blockchainId: string): void;
  /** Runs the checks that are due; a check that fails is logged and tried again at the next. */
  due(): Promise<void>;
  /** In how many ms the next check is due (0: now; `Infinity`: no network has a hot wallet). */
  dueIn(): number;
}

export function createHotWalletWatch(deps: HotWalletDeps, options: { recheckMs?: number | undefined } = {}): HotWalletWatch {
  const recheckMs = options.recheckMs ?? 10_000;
  /** When each network is next due (ms, wall clock); a network not listed is due now. */
  const next = new Map<string, number>();
  const log = deps.log ?? defaultLogger;
  return {
    soon(blockchainId) {
      next.set(blockchainId, 0);
    },
    dueIn() {
      if (deps.chain.kind !== 'real') return Infinity;
      const now = Date.now();
      return Math.min(...deps.chain.chains.flatMap((network) => (network.outgoing ? [Math.max(0, (next.get(network.outgoing.blockchainId) ?? 0) - now)] : [])));
    },
    async due() {
      if (deps.chain.kind !== 'real') return;
      for (const network of deps.chain.chains) {
        const outgoing = network.outgoing;
        if (!outgoing || (next.get(outgoing.blockchainId) ?? 0) > Date.now()) continue;
        next.set(outgoing.blockchainId, Date.now() + outgoing.reconcileMs);
        try {
          const check = await checkHotWallet(deps, outgoing);
          if (check.waiting > 0) next.set(outgoing.blockchainId, Date.now() + Math.min(recheckMs, outgoing.reconcileMs));
        } catch (error) {
          next.set(outgoing.blockchainId, Date.now() + Math.min(recheckMs, outgoing.reconcileMs));
          logWait(
            log,
            `hot wallet ${outgoing.blockchainId}`,
            'warn',
            'hot_wallet_check_failed',
            'the hot wallet could not be held against what the payouts owe (no node answered?): tried again later',
            {
              blockchainId: outgoing.blockchainId,
              error,
            },
          );
        }
      }
    },
  };
}
