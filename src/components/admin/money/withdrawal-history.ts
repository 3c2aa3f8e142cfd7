/**
 * The withdrawal history: status and date filters, paging, and the live status of withdrawals still
 * on their way. While the page shown has a pending or processing withdrawal, a `PollController`
 * reloads it every `pollInterval` ms; polling stops as soon as none is left.
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import { compareDecimal } from '../../../core/money.js';
import type { Withdrawal, WithdrawalStatus } from '../../../core/schemas.js';
import type { AdminHost } from '../admin-context.js';
import { PollController } from '../poll-controller.js';
import { PagedResource } from '../resource-controller.js';
import { clearFiltersButton, dayRangeFilter, pagedTable, selectFilter, type TableColumn } from '../templates.js';
import { networkName } from './withdraw-form.js';

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

/**
 * True when a paid-out withdrawal's recipient received another amount than was sent (a token that
 * charges a fee on transfers): the history says what arrived.
 */
export function shortfall(item: Withdrawal): boolean {
  return item.receivedAmount != null && compareDecimal(item.receivedAmount, item.amount) !== 0;
}

/** The history's filters, as the merchant set them ('' for "any"): a status and two `YYYY-MM-DD` days. */
export type HistoryFilters = { status: '' | WithdrawalStatus; fromDate: string; toDate: string };

export class WithdrawalHistoryController {
  /** The withdrawals shown, with their page and filters. */
  readonly list: PagedResource<Withdrawal, HistoryFilters>;
  private readonly poll: PollController;

  constructor(
    private readonly host: AdminHost,
    private readonly actions: HistoryActions,
  ) {
    this.list = new PagedResource<Withdrawal, HistoryFilters>(host, {
      pageSize: 10,
      filters: { status: '', fromDate: '', toDate: '' },
      fetch: ({ status, fromDate = '', toDate = '', ...query }, signal) => {
        const startDate = dayBoundary(fromDate, false);
        const endDate = dayBoundary(toDate, true);
        return host.api.withdrawals.list(
          { ...query, ...(status ? { status } : {}), ...(startDate ? { startDate } : {}), ...(endDate ? { endDate } : {}) },
          { signal },
        );
      },
      received: (data, previous) => {
        this.noteChanges(previous?.items ?? [], data.items);
        this.poll.setActive(data.items.some((item) => IN_FLIGHT.has(item.status)));
      },
    });
    this.poll = new PollController(
      host,
      () => this.list.load({ quiet: true }),
      () => host.pollInterval,
    );
  }

  /** True while pending withdrawals are being followed. */
  get live(): boolean {
    return this.poll.polling;
  }

  /** Loads the current page; `quiet` (a poll, a return to the tab) keeps the table as is until the answer arrives. */
  load(quiet = false): Promise<void> {
    return this.list.load({ quiet });
  }

  /** Stops polling (e.g. when the money tab is hidden or the element signs out). */
  pause(): void {
    this.poll.setActive(false);
  }

  /** Announces withdrawals that left pending/processing since the last load. */
  private noteChanges(before: readonly Withdrawal[], after: readonly Withdrawal[]): void {
    const text = this.host.text;
    let settled = false;
    for (const item of after) {
      const old = before.find((entry) => entry.id === item.id);
      if (!old || old.status === item.status) continue;
      this.host.announce(text.t('statusChanged', { amount: text.crypto(item.amount, item.assetId), status: text.t(`status_${item.status}`) }));
      if (!IN_FLIGHT.has(item.status)) settled = true;
    }
    if (settled) this.actions.settled();
  }

  private columns(): TableColumn<Withdrawal>[] {
    const text = this.host.text;
    const t = text.t.bind(text);
    return [
      { label: t('colDate'), class: 'date', cell: (item) => text.shortDateTime(item.createdAt) },
      { label: t('colAmount'), rowHeader: true, class: 'num', cell: (item) => text.crypto(item.amount, item.assetId) },
      {
        label: t('colAddress'),
        class: 'address-cell',
        cell: (item) => {
          return html`<span class="address-short mono" aria-hidden="true" title=${item.address}>${item.address.slice(0, 8)}…${item.address.slice(-6)}</span>
            <span class="visually-hidden">${item.address}, ${networkName(item.blockchainId, text)}</span>`;
        },
      },
      {
        label: t('colStatus'),
        class: 'status-cell',
        cell: (item) =>
          html`<span part="badge withdrawal-status status-${item.status}" class="badge ${item.status}">
              ${IN_FLIGHT.has(item.status) ? html`<span class="pulse" aria-hidden="true"></span>` : nothing}${t(`status_${item.status}`)}
            </span>
            ${item.failureReason ? html`<span class="sub">${item.failureReason}</span>` : nothing}
            ${item.stalledReason ? html`<span class="sub" part="stalled-reason">${t(`stalled_${item.stalledReason}`)}</span>` : nothing}
            ${
              shortfall(item)
                ? html`<span class="sub" part="received-amount">${t('receivedLess', { amount: text.crypto(item.receivedAmount!, item.assetId) })}</span>`
                : nothing
            }
            ${
              item.txHash
                ? html`<span class="sub mono" part="tx-hash" title=${item.txHash}
                  ><span class="visually-hidden">${t('colTx')}: ${item.txHash}</span><span aria-hidden="true">${item.txHash.slice(0, 10)}…<wbr />${item.txHash.slice(-4)}</span></span
                >`
                : nothing
            }`,
      },
    ];
  }

  render(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    return html`<section part="withdrawal-history" class="history" aria-labelledby="history-heading">
      <div class="toolbar">
        <h2 id="history-heading" tabindex="-1">${t('historyTitle')}</h2>
        ${this.live ? html`<span part="live-indicator" class="live"><span class="pulse" aria-hidden="true"></span>${t('liveUpdating')}</span>` : nothing}
      </div>
      <div part="history-filters" class="filters" role="group" aria-label=${t('historyTitle')}>
        ${selectFilter(this.list, 'status', {
          id: 'wh-status',
          part: 'filter-status',
          label: t('filterStatus'),
          any: t('statusAny'),
          choices: STATUSES.map((status) => [status, t(`status_${status}`)]),
        })}
        ${dayRangeFilter(text, this.list, ['wh-from', 'wh-to'], ['filter-from', 'filter-to'])}
        ${clearFiltersButton(text, this.list)}
      </div>
      ${pagedTable({
        host: this.host,
        list: this.list,
        label: t('historyTitle'),
        part: 'withdrawals-table',
        rowPart: 'withdrawal-row',
        columns: this.columns(),
        empty: t('noWithdrawals'),
        emptyFiltered: t('noWithdrawalsMatch'),
        paginationPart: 'history-pagination',
        heading: '#history-heading',
      })}
    </section>`;
  }
}
