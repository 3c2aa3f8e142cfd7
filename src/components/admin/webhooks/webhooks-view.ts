/**
 * The list of webhook endpoints: where each posts, what it receives, whether it is enabled (with a
 * switch per row), and the way to add one. An endpoint's detail (`webhook-detail.ts`) holds the rest.
 */
import { html, type TemplateResult } from 'lit/html.js';
import { WEBHOOK_EVENT_TYPES } from '../../../core/rules/webhooks.js';
import type { WebhookEndpoint } from '../../../core/schemas.js';
import { errorMessage, type AdminHost, type AdminText } from '../admin-context.js';
import { PagedResource } from '../resource-controller.js';
import { errorBox, pagedTable, type TableColumn } from '../templates.js';

/** What the list asks of its tab. */
export interface EndpointsListActions {
  openEndpoint(endpoint: WebhookEndpoint): void;
  createEndpoint(): void;
}

/** An event type that may break after its dots, never inside a word (`checkout.session.underpaid`). */
export function eventName(type: string): TemplateResult {
  return html`<span class="event-type">${type.split('.').map((word, index) => (index ? html`.<wbr />${word}` : word))}</span>`;
}

/** An endpoint's events in words: "All events", or the event types it receives. */
export function eventsSummary(text: AdminText, events: readonly string[]): TemplateResult | string {
  if (events.length >= WEBHOOK_EVENT_TYPES.length) return text.t('allEvents');
  return html`${events.map((type, index) => html`${index ? ', ' : ''}${eventName(type)}`)}`;
}

/** An endpoint's state as a badge. */
export function endpointBadge(text: AdminText, endpoint: Pick<WebhookEndpoint, 'isActive'>): TemplateResult {
  const state = endpoint.isActive ? 'enabled' : 'disabled';
  return html`<span part="badge endpoint-status status-${state}" class="badge ${endpoint.isActive ? 'active' : ''}">${text.t(endpoint.isActive ? 'endpointEnabled' : 'endpointDisabled')}</span>`;
}

export class EndpointsListController {
  /** The endpoints shown, with their page. */
  readonly list: PagedResource<WebhookEndpoint, Record<string, never>>;
  /** Ids of the endpoints being enabled or disabled. */
  private readonly toggling = new Set<string>();
  /** Why the last switch was refused, or ''. */
  writeError = '';

  constructor(
    private readonly host: AdminHost,
    private readonly actions: EndpointsListActions,
  ) {
    this.list = new PagedResource<WebhookEndpoint, Record<string, never>>(host, {
      pageSize: 20,
      filters: {},
      fetch: ({ page, limit }, signal) => host.api.webhookEndpoints.list({ page, limit }, { signal }),
    });
  }

  load(quiet = false): Promise<void> {
    return this.list.load({ quiet });
  }

  /** Replaces an endpoint in the page shown (after a change made elsewhere). */
  replace(endpoint: WebhookEndpoint): void {
    const data = this.list.data;
    if (data) this.list.data = { ...data, items: data.items.map((item) => (item.id === endpoint.id ? endpoint : item)) };
  }

  /** Enables or disables `endpoint`. */
  async toggle(endpoint: WebhookEndpoint): Promise<void> {
    if (this.toggling.has(endpoint.id)) return;
    const t = this.host.text.t.bind(this.host.text);
    this.toggling.add(endpoint.id);
    this.writeError = '';
    this.host.requestUpdate();
    try {
      const updated = await this.host.api.webhookEndpoints.update({ id: endpoint.id, isActive: !endpoint.isActive });
      this.replace(updated);
      this.host.announce(t(updated.isActive ? 'endpointNowEnabled' : 'endpointNowDisabled', { url: updated.url }));
    } catch (error) {
      if (!this.host.handleAuthError(error)) this.writeError = errorMessage(this.host.text, error);
    } finally {
      this.toggling.delete(endpoint.id);
      this.host.requestUpdate();
    }
  }

  private columns(): TableColumn<WebhookEndpoint>[] {
    const text = this.host.text;
    const t = text.t.bind(text);
    return [
      {
        label: t('colEndpoint'),
        rowHeader: true,
        class: 'endpoint-cell',
        cell: (endpoint) =>
          html`<button type="button" part="endpoint-url" class="link-button mono" @click=${() => this.actions.openEndpoint(endpoint)}>${endpoint.url}</button>
            ${endpoint.description ? html`<span class="sub">${endpoint.description}</span>` : ''}`,
      },
      { label: t('colEvents'), class: 'events-cell', cell: (endpoint) => eventsSummary(text, endpoint.events) },
      { label: t('colStatus'), cell: (endpoint) => endpointBadge(text, endpoint) },
      {
        label: t('colActions'),
        labelHidden: true,
        class: 'actions',
        cell: (endpoint) =>
          html`<button type="button" part="button toggle-endpoint" class="small" ?disabled=${this.toggling.has(endpoint.id)}
            aria-label=${t(endpoint.isActive ? 'disableNamed' : 'enableNamed', { url: endpoint.url })} @click=${() => this.toggle(endpoint)}>
            ${t(endpoint.isActive ? 'disable' : 'enable')}
          </button>`,
      },
    ];
  }

  render(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    return html`<section part="webhooks-list" aria-labelledby="webhooks-heading">
      <div class="toolbar">
        <h2 id="webhooks-heading" tabindex="-1">${t('webhooksTitle')}</h2>
        <button type="button" part="button primary new-endpoint" class="primary" @click=${() => this.actions.createEndpoint()}>${t('newEndpoint')}</button>
      </div>
      <p class="hint intro">${t('webhooksIntro')}</p>
      ${errorBox(text, this.writeError)}
      ${pagedTable({
        host: this.host,
        list: this.list,
        label: t('webhooksTitle'),
        part: 'endpoints-table',
        rowPart: 'endpoint-row',
        columns: this.columns(),
        empty: t('noEndpoints'),
        paginationPart: 'endpoints-pagination',
        heading: '#webhooks-heading',
      })}
    </section>`;
  }
}
