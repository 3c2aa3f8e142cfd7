/**
 * The webhooks tab: the endpoints list, the add/change form, and one endpoint's detail with its
 * deliveries, and the moves between them (focus on each screen's heading). An endpoint just added
 * opens on its detail with its signing secret on top, focused, for the one time it can be read.
 */
import type { TemplateResult } from 'lit';
import type { WebhookEndpoint, WebhookEndpointCreated } from '../../../core/schemas.js';
import type { AdminHost, AdminTab } from '../admin-context.js';
import { WebhookDetailController } from './webhook-detail.js';
import { WebhookFormController } from './webhook-form.js';
import { EndpointsListController } from './webhooks-view.js';

type Screen = 'list' | 'form' | 'detail';

export class WebhooksTab implements AdminTab {
  readonly label = 'tabWebhooks';
  /** The screen shown. */
  screen: Screen = 'list';
  private readonly endpoints: EndpointsListController;
  private readonly form: WebhookFormController;
  private readonly detail: WebhookDetailController;

  constructor(private readonly host: AdminHost) {
    this.endpoints = new EndpointsListController(host, {
      openEndpoint: (endpoint) => this.showEndpoint(endpoint),
      createEndpoint: () => this.editEndpoint(undefined),
    });
    this.form = new WebhookFormController(host, {
      saved: (endpoint, created) => this.handleSaved(endpoint, created),
      cancelled: (editing) => (editing ? this.showEndpoint(editing, false) : this.showList()),
    });
    this.detail = new WebhookDetailController(host, {
      back: () => this.showList(),
      edit: (endpoint) => this.editEndpoint(endpoint),
      changed: (endpoint) => this.endpoints.replace(endpoint),
      deleted: () => this.showList(),
    });
  }

  async load(): Promise<void> {
    if (this.screen === 'detail') await Promise.all([this.endpoints.load(), this.detail.reload()]);
    else await this.endpoints.load();
  }

  shown(visible: boolean): void {
    if (visible && this.screen === 'list' && !this.endpoints.list.loading) void this.endpoints.load(true);
  }

  render(): TemplateResult {
    if (this.screen === 'form') return this.form.render();
    if (this.screen === 'detail') return this.detail.render();
    return this.endpoints.render();
  }

  private showList(): void {
    this.screen = 'list';
    this.detail.dismissSecret();
    void this.endpoints.load();
    this.host.focusAfterRender('#webhooks-heading');
  }

  private showEndpoint(endpoint: WebhookEndpoint, refresh = true, secret?: string): void {
    this.screen = 'detail';
    this.detail.show(endpoint, { refresh, ...(secret ? { secret } : {}) });
    this.host.focusAfterRender(secret ? '#wh-secret-heading' : '#webhook-detail-heading');
  }

  private editEndpoint(endpoint: WebhookEndpoint | undefined): void {
    this.screen = 'form';
    this.detail.dismissSecret();
    this.form.open(endpoint);
    this.host.requestUpdate();
    this.host.focusAfterRender('#webhook-form-heading');
  }

  private handleSaved(endpoint: WebhookEndpoint | WebhookEndpointCreated, created: boolean): void {
    const t = this.host.text.t.bind(this.host.text);
    this.host.announce(t(created ? 'endpointAdded' : 'endpointSaved', { url: endpoint.url }));
    if (created) this.endpoints.list.page = 1;
    // The secret goes to the detail and nowhere else; the endpoint kept for lists is without it.
    const { secret, ...saved } = endpoint as WebhookEndpointCreated;
    this.showEndpoint(saved, false, created ? secret : undefined);
    void this.endpoints.load();
  }
}
