/**
 * The orders tab: the orders the shop's server created, with their status, and the way to each one's
 * payments (the payments tab, filtered by the order's reference) and hosted page.
 */
import type { TemplateResult } from 'lit';
import type { Order } from '../../../core/schemas.js';
import type { AdminHost, AdminTab } from '../admin-context.js';
import { OrdersListController } from './orders-view.js';

/** What the orders tab asks of `<paylink-admin>`. */
export interface OrdersTabOptions {
  /** Opens the payments tab on `order`'s payments. */
  showPayments(order: Order): void;
  /** Opens the payments tab on the refunds of `order`'s payments. */
  showRefunds(order: Order): void;
}

/** The orders tab of `<paylink-admin>`: the list, refreshed quietly each time the tab is shown again. */
export class OrdersTab implements AdminTab {
  readonly label = 'tabOrders';
  private readonly orders: OrdersListController;

  constructor(host: AdminHost, options: OrdersTabOptions) {
    this.orders = new OrdersListController(host, options);
  }

  load(): Promise<void> {
    return this.orders.load();
  }

  shown(visible: boolean): void {
    // Back on the tab: fresh statuses (an order paid meanwhile) without a flash.
    if (visible && !this.orders.list.loading) void this.orders.load(true);
  }

  render(): TemplateResult {
    return this.orders.render();
  }
}
