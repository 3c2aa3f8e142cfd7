/**
 * What the money rooms (sessions, ledger, withdrawals, webhooks) need beyond `ServiceDeps`. `createApp`
 * fills in defaults for whatever the caller leaves out, so `createApp({db, chain, publicUrl, now})`
 * still gives a complete service (without a payout worker: that runs in `serve.ts`).
 */
import type { PayoutRequest } from '../chain/types.js';
import { LIMIT_DEFAULTS } from '../limits/options.js';
import type { ServiceDeps } from './context.js';
import { createSessionEvents, type SessionEvents } from './events/index.js';
import { createStaticRateBook, type RateBook } from './rates/index.js';
import { resolveWebhookSettings, type WebhookSettings } from './webhooks/settings.js';

export interface MoneyDeps {
  /** Where quotes come from: read from memory, refreshed in the background (./rates/). */
  rates: RateBook;
  sessionEvents: SessionEvents;
  /** Called once new withdrawals are recorded (a burst of them once): wakes this instance's payout worker, if any. */
  onWithdrawalCreated: () => void;
  /**
   * Called with the withdrawals the intake is about to record (each turn of it), before the statement:
   * the payouts prepare them meanwhile (../payouts/ahead.ts). Some may then be refused.
   */
  anticipatePayouts: (requests: readonly PayoutRequest[]) => void;
  /** Interval of SSE heartbeat comments (and of the re-read that backs up NOTIFY), in ms; give `sessionEvents` the same. */
  sseHeartbeatMs: number;
  /** How webhooks are delivered: SSRF rule, retry base, timeouts (./webhooks/settings.ts). */
  webhooks: WebhookSettings;
}

export type MoneyServiceDeps = ServiceDeps & MoneyDeps;

export function withMoneyDefaults(deps: ServiceDeps & Partial<MoneyDeps>): MoneyServiceDeps {
  return {
    ...deps,
    rates: deps.rates ?? createStaticRateBook(deps.chain.networks.flatMap((network) => network.assets)),
    sessionEvents: deps.sessionEvents ?? createSessionEvents(deps.db, { heartbeatMs: deps.sseHeartbeatMs }),
    onWithdrawalCreated: deps.onWithdrawalCreated ?? (() => {}),
    anticipatePayouts: deps.anticipatePayouts ?? (() => {}),
    sseHeartbeatMs: deps.sseHeartbeatMs ?? LIMIT_DEFAULTS.sseHeartbeatMs,
    webhooks: deps.webhooks ?? resolveWebhookSettings(),
  };
}
