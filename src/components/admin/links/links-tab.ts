/**
 * The links tab: four screens, the list, the create/edit form, one link's detail and one of its
 * payments, and the moves between them (with focus on each screen's heading).
 */
import type { TemplateResult } from 'lit';
import type { PaymentLink } from '../../../core/schemas.js';
import type { AdminHost, AdminTab } from '../admin-context.js';
import { LinkDetailController } from './link-detail.js';
import { LinkFormController } from './link-form.js';
import { LinksListController } from './links-view.js';
import type { NetworkDirectory } from '../networks.js';
import { PaymentDetailController } from '../payments/payment-detail.js';

/** What the links tab asks of `<paylink-admin>`. */
export interface LinksTabOptions {
  /** A link was created or edited. */
  saved(link: PaymentLink, created: boolean): void;
  /** Where the embed snippet loads the checkout from (the element's `checkout-src`). */
  checkoutSrc(): string | undefined;
  /** Opens the payments tab on `link`'s payments. */
  showPayments(link: PaymentLink): void;
  /** The explorers of the service's networks, for a payment's transactions. */
  networks: NetworkDirectory;
}

type Screen = 'list' | 'form' | 'detail' | 'payment';

export class LinksTab implements AdminTab {
  readonly label = 'tabLinks';
  readonly shortLabel = 'tabLinksShort';
  /** The screen shown. */
  screen: Screen = 'list';
  private readonly links: LinksListController;
  private readonly form: LinkFormController;
  private readonly detail: LinkDetailController;
  private readonly payment: PaymentDetailController;

  constructor(
    private readonly host: AdminHost,
    private readonly options: LinksTabOptions,
  ) {
    this.links = new LinksListController(host, {
      openLink: (link) => this.showLink(link),
      editLink: (link) => this.editLink(link),
      createLink: () => this.editLink(undefined),
    });
    this.form = new LinkFormController(host, {
      saved: (link, created) => this.handleSaved(link, created),
      cancelled: (editing) => (editing ? this.showLink(editing, false) : this.showList()),
    });
    this.detail = new LinkDetailController(host, {
      back: () => this.showList(),
      edit: (link) => this.editLink(link),
      changed: (link) => this.links.replace(link),
      openPayment: (payment) => {
        this.screen = 'payment';
        this.payment.show(payment);
        this.host.focusAfterRender('#payment-detail-heading');
      },
      allPayments: (link) => options.showPayments(link),
    });
    this.payment = new PaymentDetailController(host, options.networks, {
      backLabel: () => host.text.t('backToLink', { title: this.detail.link?.title ?? '' }),
      back: () => {
        const link = this.detail.link;
        if (link) this.showLink(link, false);
        else this.showList();
        this.host.focusAfterRender('#ld-payments');
      },
    });
  }

  async load(): Promise<void> {
    if (this.screen === 'detail') await Promise.all([this.links.load(), this.detail.reload()]);
    else if (this.screen === 'payment') await Promise.all([this.links.load(), this.payment.reload()]);
    else await this.links.load();
  }

  render(): TemplateResult {
    if (this.screen === 'form') return this.form.render();
    if (this.screen === 'detail') return this.detail.render();
    if (this.screen === 'payment') return this.payment.render();
    return this.links.render();
  }

  private showList(): void {
    this.screen = 'list';
    void this.links.load();
    this.host.focusAfterRender('#links-heading');
  }

  private showLink(link: PaymentLink, refresh = true): void {
    this.screen = 'detail';
    this.detail.scriptSrc = this.options.checkoutSrc();
    this.detail.show(link, refresh);
    this.host.focusAfterRender('#link-detail-heading');
  }

  private editLink(link: PaymentLink | undefined): void {
    this.screen = 'form';
    this.form.open(link);
    this.host.focusAfterRender('#link-form-heading');
  }

  private handleSaved(link: PaymentLink, created: boolean): void {
    this.host.announce(this.host.text.t(created ? 'linkCreated' : 'linkSaved', { title: link.title }));
    this.options.saved(link, created);
    if (created) this.links.list.page = 1;
    this.showLink(link, false);
    void this.links.load();
  }
}
