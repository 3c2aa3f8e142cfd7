/**
 * The money tab: a banner for each alert a network has (a payout wallet low, books that do not match
 * the chain, payouts halted), the balances, the withdrawal form beside the history (one column under
 * 52rem). Pending withdrawals and pending balances are followed live only while the tab is shown; the
 * alerts are read again with them (the networks' list carries them).
 */
import { html, type TemplateResult } from 'lit/html.js';
import type { AdminHost, AdminTab } from '../admin-context.js';
import { errorBox } from '../templates.js';
import { BalanceController } from './money-view.js';
import { WithdrawController } from './withdraw-form.js';
import { WithdrawalHistoryController } from './withdrawal-history.js';

/** What the money tab tells `<paylink-admin>`. */
export interface MoneyTabEvents {
  /** The service accepted a withdrawal. */
  withdrawalCreated(id: string): void;
}

export class MoneyTab implements AdminTab {
  readonly label = 'tabMoney';
  readonly shortLabel = 'tabMoneyShort';
  private readonly balances: BalanceController;
  private readonly withdraw: WithdrawController;
  private readonly history: WithdrawalHistoryController;

  constructor(
    private readonly host: AdminHost,
    events: MoneyTabEvents,
  ) {
    this.balances = new BalanceController(host);
    // A withdrawal finished: the balances moved, and a network's alert may have ended with it.
    this.history = new WithdrawalHistoryController(host, {
      settled: () => {
        void this.balances.load();
        void this.withdraw.loadNetworks();
      },
    });
    this.withdraw = new WithdrawController(host, {
      availableOf: (assetId, blockchainId) => this.balances.available(assetId, blockchainId),
      submitted: (id) => {
        events.withdrawalCreated(id);
        this.history.list.page = 1;
        void this.load();
      },
    });
  }

  async load(): Promise<void> {
    await Promise.all([this.balances.load(), this.history.load(), this.withdraw.loadNetworks()]);
  }

  shown(visible: boolean): void {
    if (visible) {
      void this.history.load(true);
      void this.balances.load(true);
      void this.withdraw.loadNetworks();
    } else {
      this.history.pause();
      this.balances.pause();
    }
  }

  render(): TemplateResult {
    const text = this.host.text;
    return html`${this.withdraw.networks?.flatMap((network) =>
      network.alerts.map((alert) => errorBox(text, text.t(`alert_${alert.code}`), { hint: alert.message, part: `network-alert alert-${alert.code}` })),
    )}${this.balances.render()}
      <div class="money-grid">${this.withdraw.render()} ${this.history.render()}</div>`;
  }
}
