/**
 * The merchant's balances per asset and network (available and pending), loaded from
 * `GET /admin/balance`. Each card names its network when the merchant holds funds on more than one.
 * While any balance has a pending amount (a payment whose block is not final yet), a `PollController`
 * reloads them every 3 × `pollInterval` (12 s by default), so the amount turns available on screen
 * without a click; polling stops once nothing is pending.
 */
import { html, type TemplateResult } from 'lit/html.js';
import { ASSET_IDS, compareDecimal, toDecimalString } from '../../../core/money.js';
import type { Balance } from '../../../core/schemas.js';
import { assetName } from '../../../internal/localize.js';
import type { AdminHost } from '../admin-context.js';
import { PollController } from '../poll-controller.js';
import { ResourceController } from '../resource-controller.js';
import { errorBox } from '../templates.js';
import { networkName } from './withdraw-form.js';

/** The balances card row of the money tab. */
export class BalanceController {
  /** `GET /balance`, loaded with the money tab and after each withdrawal. */
  readonly resource: ResourceController<Balance>;
  private readonly poll: PollController;

  constructor(private readonly host: AdminHost) {
    this.resource = new ResourceController(host, {
      fetch: (signal) => host.api.balance.get({ signal }),
      received: (balance) => this.poll.setActive(balance.items.some((item) => compareDecimal(item.pending, '0') > 0)),
    });
    // Pending balances move at the pace of blocks, slower than a withdrawal's status: a third as often.
    this.poll = new PollController(
      host,
      () => this.load(true),
      () => 3 * host.pollInterval,
    );
  }

  /** The available amount of `assetId` on `blockchainId` as a plain decimal (`125.5`), or undefined before loading. */
  available(assetId: string, blockchainId: string): string | undefined {
    const balance = this.resource.data;
    if (!balance) return undefined;
    const item = balance.items.find((entry) => entry.assetId === assetId && entry.blockchainId === blockchainId);
    return toDecimalString(item?.available ?? '0') ?? '0';
  }

  /** Loads the balances; `quiet` (a poll, a return to the tab) keeps the cards as they are until the answer arrives. */
  load(quiet = false): Promise<void> {
    return this.resource.load({ quiet });
  }

  /** Stops polling (the money tab is hidden, or the element signed out); the next load starts it again if need be. */
  pause(): void {
    this.poll.setActive(false);
  }

  render(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const { data: balance, loading, error } = this.resource;
    // Every (asset, network) the service settles in, as it lists them; before it answers, each asset at zero.
    const items = balance?.items ?? ASSET_IDS.map((assetId) => ({ assetId, blockchainId: '', available: '0', pending: '0' }));
    const networks = new Set(items.map((item) => item.blockchainId)).size > 1;
    return html`<section part="balances" class="balances-section" aria-labelledby="balances-heading" aria-busy=${loading ? 'true' : 'false'}>
      <div class="toolbar">
        <h2 id="balances-heading" tabindex="-1">${t('balancesTitle')}</h2>
        <button type="button" part="button refresh-balances" class="ghost" ?disabled=${loading} @click=${() => this.load()}>${t('refresh')}</button>
      </div>
      ${errorBox(text, error, { retry: () => this.resource.retry() })}
      <ul class="balance-cards" role="list">
        ${items.map(
          (
            item,
          ) => html`<li part="balance balance-${item.assetId.toLowerCase()} balance-${item.assetId.toLowerCase()}-${item.blockchainId}" class="card balance-card">
            <h3>${assetName(item.assetId)}${networks ? html` <span class="sub" part="balance-network">· ${networkName(item.blockchainId, text)}</span>` : ''}</h3>
            <p class="big" part="balance-available">
              <span class="visually-hidden">${t('available')}: </span>${balance ? text.crypto(item.available, item.assetId) : '—'}
            </p>
            <p class="sub" part="balance-pending">${t('pending')}: ${balance ? text.crypto(item.pending, item.assetId) : '—'}</p>
          </li>`,
        )}
      </ul>
    </section>`;
  }
}
