/**
 * The money tab: the balances above, the withdrawal form beside the history (one column under
 * 52rem). Pending withdrawals and pending balances are followed live only while the tab is shown.
 */
import { html, type TemplateResult } from 'lit/html.js';
import type { AdminHost, AdminTab } from '../admin-context.js';
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

  constructor(host: AdminHost, events: MoneyTabEvents) {
    this.balances = new BalanceController(host);
    this.history = new WithdrawalHistoryController(host, { settled: () => void this.balances.load() });
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
    await Promise.all([this.balances.load(), this.history.load()]);
  }

  shown(visible: boolean): void {
    if (visible) {
      void this.history.load(true);
      void this.balances.load(true);
    } else {
      this.history.pause();
      this.balances.pause();
    }
  }

  render(): TemplateResult {
    return html`${this.balances.render()}
      <div class="money-grid">${this.withdraw.render()} ${this.history.render()}</div>`;
  }
}
