/**
 * The withdrawal history: status and date filters, paging, and the live status of withdrawals still
 * on their way. While the page shown has a pending or processing withdrawal, a `PollController`
 * reloads it every `pollInterval` ms; polling stops as soon as none is left.
 */
import { html, nothing, type ReactiveController, type TemplateResult } from 'lit';
import type { Withdrawal, WithdrawalList, WithdrawalStatus } from '../../core/schemas.js';
import { errorMessage, type AdminHost } from './admin-context.js';
import { networkName } from './withdraw-form.js';
import { PollController } from './poll-controller.js';

const STATUSES: WithdrawalStatus[] = ['pending', 'processing', 'success', 'failed'];
const IN_FLIGHT: ReadonlySet<WithdrawalStatus> = new Set(['pending', 'processing']);

export interface HistoryActions {
  /** A withdrawal finished (succeeded or failed): balances changed. */
  settled(): void;
}

/** The start (or end) of a `YYYY-MM-DD` day in the merchant's time zone, as ISO. */
export function dayBoundary(day: string, end: boolean): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const date = end
    ? new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 23, 59, 59, 999)
    : new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 0, 0, 0, 0);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export class WithdrawalHistoryController implements ReactiveController {
  pageSize = 10;
  page = 1;
  status: '' | WithdrawalStatus = '';
  fromDate = '';
  toDate = '';
  data: WithdrawalList | undefined;
  loading = false;
  error = '';
  private sequence = 0;
  private aborter: AbortController | undefined;
  private readonly poll: PollController;

  constructor(
    private readonly host: AdminHost,
    private readonly actions: HistoryActions,
  ) {
    host.addController(this);
    this.poll = new PollController(host, () => this.load(true), () => host.pollInterval);
  }

  /** True while pending withdrawals are being followed. */
  get live(): boolean {
    return this.poll.polling;
  }

  /** Loads the current page; `quiet` (a poll) keeps the table as is until the answer arrives. */
  async load(quiet = false): Promise<void> {
    this.aborter?.abort();
    const aborter = (this.aborter = new AbortController());
    const sequence = ++this.sequence;
    if (!quiet) {
      this.loading = true;
      this.error = '';
      this.host.requestUpdate();
    }
    try {
      const startDate = dayBoundary(this.fromDate, false);
      const endDate = dayBoundary(this.toDate, true);
      const data = await this.host.api.withdrawals.list(
        {
          page: this.page,
          limit: this.pageSize,
          ...(this.status ? { status: this.status } : {}),
          ...(startDate ? { startDate } : {}),
          ...(endDate ? { endDate } : {}),
        },
        { signal: aborter.signal },
      );
      if (sequence !== this.sequence) return;
      this.noteChanges(this.data?.items ?? [], data.items);
      this.data = data;
      this.error = '';
      this.poll.setActive(data.items.some((item) => IN_FLIGHT.has(item.status)));
    } catch (error) {
      if (sequence !== this.sequence || aborter.signal.aborted) return;
      if (this.host.handleAuthError(error)) {
        this.poll.setActive(false);
        return;
      }
      // A failed poll is not worth a banner: the next one will try again.
      if (!quiet) this.error = errorMessage(this.host.text, error);
    } finally {
      if (sequence === this.sequence) {
        this.loading = false;
        this.host.requestUpdate();
      }
    }
  }

  /** Stops polling (e.g. when the money tab is hidden or the element signs out). */
  pause(): void {
    this.poll.setActive(false);
  }

  hostDisconnected(): void {
    this.aborter?.abort();
  }

  /** Announces withdrawals that left pending/processing since the last load. */
  private noteChanges(before: readonly Withdrawal[], after: readonly Withdrawal[]): void {
    const text = this.host.text;
    let settled = false;
    for (const item of after) {
      const old = before.find((entry) => entry.id === item.id);
      if (!old || old.status === item.status) continue;
      this.host.announce(
        text.t('statusChanged', { amount: text.crypto(item.amount, item.assetId), status: text.t(`status_${item.status}`) }),
      );
      if (!IN_FLIGHT.has(item.status)) settled = true;
    }
    if (settled) this.actions.settled();
  }

  private filter(patch: Partial<Pick<this, 'status' | 'fromDate' | 'toDate'>>): void {
    Object.assign(this, patch);
    this.page = 1;
    void this.load();
  }

  private goTo(page: number): void {
    this.page = page;
    void this.load();
    this.host.focusAfterRender('#history-heading');
  }

  private renderRow(item: Withdrawal): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    return html`<tr part="withdrawal-row">
      <td class="date">${text.shortDateTime(item.createdAt)}</td>
      <th scope="row" class="num">${text.crypto(item.amount, item.assetId)}</th>
      <td class="mono address-cell">
        <span class="address-short" aria-hidden="true" title=${item.address}>${item.address.slice(0, 8)}…${item.address.slice(-6)}</span>
        <span class="visually-hidden">${item.address}, ${networkName(item.blockchainId, text)}</span>
      </td>
      <td>
        <span part="badge withdrawal-status status-${item.status}" class="badge ${item.status}">
          ${IN_FLIGHT.has(item.status) ? html`<span class="pulse" aria-hidden="true"></span>` : nothing}${t(`status_${item.status}`)}
        </span>
        ${item.failureReason ? html`<span class="sub">${item.failureReason}</span>` : nothing}
        ${item.txHash
          ? html`<span class="sub mono" part="tx-hash" title=${item.txHash}
              ><span class="visually-hidden">${t('colTx')}: ${item.txHash}</span><span aria-hidden="true">${item.txHash.slice(0, 10)}…${item.txHash.slice(-4)}</span></span
            >`
          : nothing}
      </td>
    </tr>`;
  }

  render(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const meta = this.data?.meta;
    const items = this.data?.items ?? [];
    const pages = Math.max(meta?.totalPages ?? 1, 1);
    const page = meta?.currentPage ?? this.page;
    const filtered = Boolean(this.status || this.fromDate || this.toDate);
    return html`<section part="withdrawal-history" class="history" aria-labelledby="history-heading">
      <div class="toolbar">
        <h2 id="history-heading" tabindex="-1">${t('historyTitle')}</h2>
        ${this.live ? html`<span part="live-indicator" class="live"><span class="pulse" aria-hidden="true"></span>${t('liveUpdating')}</span>` : nothing}
      </div>
      <div part="history-filters" class="filters" role="group" aria-label=${t('historyTitle')}>
        <div class="field">
          <label for="wh-status">${t('filterStatus')}</label>
          <select id="wh-status" part="filter-status" @change=${(event: Event) => this.filter({ status: (event.target as HTMLSelectElement).value as '' | WithdrawalStatus })}>
            <option value="" ?selected=${this.status === ''}>${t('statusAny')}</option>
            ${STATUSES.map((status) => html`<option value=${status} ?selected=${this.status === status}>${t(`status_${status}`)}</option>`)}
          </select>
        </div>
        <div class="field">
          <label for="wh-from">${t('fromDate')}</label>
          <input id="wh-from" part="filter-from" type="date" .value=${this.fromDate} max=${this.toDate || nothing}
            @change=${(event: Event) => this.filter({ fromDate: (event.target as HTMLInputElement).value })} />
        </div>
        <div class="field">
          <label for="wh-to">${t('toDate')}</label>
          <input id="wh-to" part="filter-to" type="date" .value=${this.toDate} min=${this.fromDate || nothing}
            @change=${(event: Event) => this.filter({ toDate: (event.target as HTMLInputElement).value })} />
        </div>
        ${filtered
          ? html`<button type="button" part="button clear-filters" class="ghost" @click=${() => this.filter({ status: '', fromDate: '', toDate: '' })}>${t('clearFilters')}</button>`
          : nothing}
      </div>
      ${this.error
        ? html`<div part="error" class="error-box" role="alert">
            <p>${this.error}</p>
            <button type="button" part="button retry" @click=${() => this.load()}>${t('tryAgain')}</button>
          </div>`
        : nothing}
      <!-- Focusable so that keyboard users can scroll the table sideways on a narrow screen. -->
      <div class="table-wrap" role="region" tabindex="0" aria-label="${t('historyTitle')}, ${t('pageOf', { page, pages })}" aria-busy=${this.loading ? 'true' : 'false'}>
        ${!this.data && this.loading
          ? html`<p part="loading" class="placeholder">${t('loading')}</p>`
          : this.data && items.length === 0
            ? html`<p part="empty" class="placeholder">${filtered ? t('noWithdrawalsMatch') : t('noWithdrawals')}</p>`
            : this.data
              ? html`<table part="withdrawals-table">
                  <caption class="visually-hidden">${t('historyTitle')}</caption>
                  <thead>
                    <tr>
                      <th scope="col">${t('colDate')}</th>
                      <th scope="col" class="num">${t('colAmount')}</th>
                      <th scope="col">${t('colAddress')}</th>
                      <th scope="col">${t('colStatus')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${items.map((item) => this.renderRow(item))}
                  </tbody>
                </table>`
              : nothing}
      </div>
      ${meta && meta.totalItems > 0
        ? html`<nav part="pagination history-pagination" class="pagination" aria-label="${t('historyTitle')} – ${t('pagination')}">
            <button type="button" part="button previous-page" ?disabled=${page <= 1 || this.loading} @click=${() => this.goTo(page - 1)}>${t('previous')}</button>
            <span part="page-info">${t('pageOf', { page, pages })}</span>
            <button type="button" part="button next-page" ?disabled=${page >= pages || this.loading} @click=${() => this.goTo(page + 1)}>${t('next')}</button>
          </nav>`
        : nothing}
    </section>`;
  }
}
