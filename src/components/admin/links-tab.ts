/**
 * The links tab: three screens, the list, the create/edit form and one link's detail, and the moves
 * between them (with focus on each screen's heading). A payments tab will have the same shape: a
 * list screen and a detail screen.
 */
import type { TemplateResult } from 'lit';
import type { PaymentLink } from '../../core/schemas.js';
import type { AdminHost, AdminTab } from './admin-context.js';
import { LinkDetailController } from './link-detail.js';
import { LinkFormController } from './link-form.js';
import { LinksListController } from './links-view.js';

/** What the links tab asks of `<paylink-admin>`. */
export interface LinksTabOptions {
  /** A link was created or edited. */
  saved(link: PaymentLink, created: boolean): void;
  /** Where the embed snippet loads the checkout from (the element's `checkout-src`). */
  checkoutSrc(): string | undefined;
}

type Screen = 'list' | 'form' | 'detail';

export class LinksTab implements AdminTab {
  readonly label = 'tabLinks';
  /** The screen shown. */
  screen: Screen = 'list';
  private readonly links: LinksListController;
  private readonly form: LinkFormController;
  private readonly detail: LinkDetailController;

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
    });
  }

  async load(): Promise<void> {
    if (this.screen === 'detail') await Promise.all([this.links.load(), this.detail.reload()]);
    else await this.links.load();
  }

  render(): TemplateResult {
    if (this.screen === 'form') return this.form.render();
    if (this.screen === 'detail') return this.detail.render();
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
