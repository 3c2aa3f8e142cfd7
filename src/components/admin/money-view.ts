/**
 * The merchant's balances per asset (available and pending), loaded from `GET /admin/balance`.
 */
import { html, nothing, type ReactiveController, type TemplateResult } from 'lit';
import { ASSET_IDS, toDecimalString } from '../../core/money.js';
import type { Balance } from '../../core/schemas.js';
import { assetName } from '../../internal/localize.js';
import { errorMessage, type AdminHost } from './admin-context.js';

export class BalanceController implements ReactiveController {
  balance: Balance | undefined;
  loading = false;
  error = '';
  private aborter: AbortController | undefined;

  constructor(private readonly host: AdminHost) {
    host.addController(this);
  }

  /** The available amount of `assetId` as a plain decimal (`125.5`), or undefined before loading. */
  available(assetId: string): string | undefined {
    if (!this.balance) return undefined;
    const item = this.balance.items.find((entry) => entry.assetId === assetId);
    return toDecimalString(item?.available ?? '0') ?? '0';
  }

  async load(): Promise<void> {
    this.aborter?.abort();
    const aborter = (this.aborter = new AbortController());
    this.loading = true;
    this.error = '';
    this.host.requestUpdate();
    try {
      this.balance = await this.host.api.balance.get({ signal: aborter.signal });
    } catch (error) {
      if (aborter.signal.aborted) return;
      if (!this.host.handleAuthError(error)) this.error = errorMessage(this.host.text, error);
    } finally {
      if (this.aborter === aborter) {
        this.loading = false;
        this.host.requestUpdate();
      }
    }
  }

  hostDisconnected(): void {
    this.aborter?.abort();
  }

  render(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    // Every asset the service settles in is shown, at zero when the service has no entry for it yet.
    const items = ASSET_IDS.map(
      (assetId) => this.balance?.items.find((item) => item.assetId === assetId) ?? { assetId, available: '0', pending: '0' },
    );
    return html`<section part="balances" class="balances-section" aria-labelledby="balances-heading" aria-busy=${this.loading ? 'true' : 'false'}>
      <div class="toolbar">
        <h2 id="balances-heading" tabindex="-1">${t('balancesTitle')}</h2>
        <button type="button" part="button refresh-balances" class="ghost" ?disabled=${this.loading} @click=${() => this.load()}>${t('refresh')}</button>
      </div>
      ${this.error
        ? html`<div part="error" class="error-box" role="alert">
            <p>${this.error}</p>
            <button type="button" part="button retry" @click=${() => this.load()}>${t('tryAgain')}</button>
          </div>`
        : nothing}
      <ul class="balance-cards" role="list">
        ${items.map(
          (item) => html`<li part="balance balance-${item.assetId.toLowerCase()}" class="card balance-card">
            <h3>${assetName(item.assetId)}</h3>
            <p class="big" part="balance-available">
              <span class="visually-hidden">${t('available')}: </span>${this.balance ? text.crypto(item.available, item.assetId) : '—'}
            </p>
            <p class="sub" part="balance-pending">${t('pending')}: ${this.balance ? text.crypto(item.pending, item.assetId) : '—'}</p>
          </li>`,
        )}
      </ul>
    </section>`;
  }
}
