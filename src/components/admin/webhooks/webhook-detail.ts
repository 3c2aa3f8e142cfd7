/**
 * One webhook endpoint: its URL, events and state, the actions on it (send a test event, enable or
 * disable, change, delete after a confirm step), and its delivery log with a retry per delivery.
 *
 * Right after the endpoint is added, its signing secret sits on top, with a copy button and the
 * warning that it will not be shown again: the service returns it only in that one answer, and the
 * admin keeps it only until the merchant says it is saved or leaves the endpoint.
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import { WEBHOOK_DELIVERY_STATUSES } from '../../../core/rules/webhooks.js';
import type { WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint } from '../../../core/schemas.js';
import { FlashController } from '../../../internal/flash-controller.js';
import { copyToClipboard, errorMessage, type AdminHost } from '../admin-context.js';
import { PagedResource, ResourceController } from '../resource-controller.js';
import { backButton, errorBox, loadingPlaceholder, pagedTable, selectFilter, type TableColumn } from '../templates.js';
import { endpointBadge, eventName, eventsSummary } from './webhooks-view.js';

/** What the detail asks of its tab. */
export interface WebhookDetailActions {
  back(): void;
  edit(endpoint: WebhookEndpoint): void;
  /** The endpoint changed (enabled, disabled). */
  changed(endpoint: WebhookEndpoint): void;
  deleted(endpoint: WebhookEndpoint): void;
}

/** The badge tone of a delivery state. */
const DELIVERY_TONES: Record<WebhookDeliveryStatus, string> = { pending: 'pending', delivered: 'success', failed: 'failed' };

export class WebhookDetailController {
  /** The endpoint shown: set at once from the list or the form, then read again. */
  readonly resource: ResourceController<WebhookEndpoint>;
  /** Its deliveries, newest first, with a status filter. */
  readonly deliveries: PagedResource<WebhookDelivery, { status: '' | WebhookDeliveryStatus }>;
  /** The signing secret of an endpoint just added, until the merchant has saved it. */
  secret: string | undefined;
  confirmingDelete = false;
  busy: '' | 'toggle' | 'delete' | 'test' | 'roll' = '';
  /** What the last test event did, or why the last action failed. */
  testResult: { ok: boolean; message: string } | undefined;
  writeError = '';
  /** Ids of the deliveries being retried. */
  private readonly retrying = new Set<string>();
  private readonly flash: FlashController;
  private copyFailed = false;

  constructor(
    private readonly host: AdminHost,
    private readonly actions: WebhookDetailActions,
  ) {
    this.resource = new ResourceController(host, {
      fetch: (signal) => host.api.webhookEndpoints.get(this.resource.data!.id, { signal }),
      received: (fresh) => actions.changed(fresh),
    });
    this.deliveries = new PagedResource<WebhookDelivery, { status: '' | WebhookDeliveryStatus }>(host, {
      pageSize: 10,
      filters: { status: '' },
      fetch: ({ status, page, limit }, signal) =>
        host.api.webhookEndpoints.deliveries(this.resource.data!.id, { page, limit, ...(status ? { status } : {}) }, { signal }),
    });
    this.flash = new FlashController(host, 2500);
  }

  /** The endpoint shown, if any. */
  get endpoint(): WebhookEndpoint | undefined {
    return this.resource.data;
  }

  /**
   * Shows `endpoint` at once and loads its deliveries; `secret` (right after it was added) is shown
   * until dismissed. Another endpoint than the one shown starts with a clean slate.
   */
  show(endpoint: WebhookEndpoint, options: { secret?: string; refresh?: boolean } = {}): void {
    if (this.endpoint?.id !== endpoint.id) {
      this.deliveries.filters = { status: '' };
      this.deliveries.page = 1;
      this.deliveries.set(undefined);
    }
    this.resource.set(endpoint);
    this.secret = options.secret;
    this.confirmingDelete = false;
    this.testResult = undefined;
    this.writeError = '';
    this.copyFailed = false;
    void (options.refresh === false ? this.deliveries.load() : this.reload());
  }

  /** Forgets the secret (the merchant saved it, or left the endpoint). */
  dismissSecret(): void {
    if (this.secret === undefined) return;
    this.secret = undefined;
    this.host.requestUpdate();
  }

  /** Loads the endpoint and its deliveries again. */
  async reload(): Promise<void> {
    if (this.resource.data) await Promise.all([this.resource.load(), this.deliveries.load()]);
  }

  private async run(kind: 'toggle' | 'delete' | 'test' | 'roll', action: (endpoint: WebhookEndpoint) => Promise<void>): Promise<void> {
    const endpoint = this.endpoint;
    if (!endpoint || this.busy) return;
    this.busy = kind;
    this.writeError = '';
    if (kind === 'test') this.testResult = undefined;
    this.host.requestUpdate();
    try {
      await action(endpoint);
    } catch (error) {
      if (!this.host.handleAuthError(error)) {
        this.writeError = errorMessage(this.host.text, error);
        this.host.announce(this.writeError);
      }
    } finally {
      this.busy = '';
      this.host.requestUpdate();
    }
  }

  private toggle(): Promise<void> {
    return this.run('toggle', async (endpoint) => {
      const updated = await this.host.api.webhookEndpoints.update({ id: endpoint.id, isActive: !endpoint.isActive });
      this.resource.set(updated);
      this.actions.changed(updated);
      this.host.announce(this.host.text.t(updated.isActive ? 'endpointNowEnabled' : 'endpointNowDisabled', { url: updated.url }));
    });
  }

  private sendTest(): Promise<void> {
    const text = this.host.text;
    return this.run('test', async (endpoint) => {
      const delivery = await this.host.api.webhookEndpoints.sendTestEvent(endpoint.id);
      const attempt = delivery.attempts.at(-1);
      this.testResult =
        delivery.status === 'delivered'
          ? { ok: true, message: text.t('testDelivered', { response: this.response(delivery) }) }
          : {
              ok: false,
              // What comes next is the delivery's own `nextAttemptAt`, the same the log's row shows, so the two agree.
              message: `${text.t('testFailed', { response: attempt ? this.response(delivery) : text.t('noResponse') })} ${
                delivery.nextAttemptAt ? text.t('testNextRetry', { date: text.shortDateTime(delivery.nextAttemptAt) }) : text.t('testNoRetry')
              }`,
            };
      this.host.announce(this.testResult.message);
      this.deliveries.page = 1;
      void this.deliveries.load();
    });
  }

  /** A new secret, shown in the secret card as after creation; the old one keeps signing beside it for 24 hours. */
  private roll(): Promise<void> {
    return this.run('roll', async (endpoint) => {
      const { secret, ...rolled } = await this.host.api.webhookEndpoints.rollSecret(endpoint.id);
      this.resource.set(rolled);
      this.secret = secret;
      this.host.focusAfterRender('#wh-secret-heading');
    });
  }

  private askDelete(): void {
    this.confirmingDelete = true;
    this.host.requestUpdate();
    this.host.focusAfterRender('#wh-delete-heading');
  }

  private cancelDelete(): void {
    this.confirmingDelete = false;
    this.host.requestUpdate();
    this.host.focusAfterRender('[part~="delete-endpoint"]');
  }

  private confirmDelete(): Promise<void> {
    return this.run('delete', async (endpoint) => {
      await this.host.api.webhookEndpoints.delete(endpoint.id);
      this.confirmingDelete = false;
      this.secret = undefined;
      this.host.announce(this.host.text.t('endpointDeleted', { url: endpoint.url }));
      this.actions.deleted(endpoint);
    });
  }

  private async retry(delivery: WebhookDelivery): Promise<void> {
    if (this.retrying.has(delivery.id)) return;
    const text = this.host.text;
    this.retrying.add(delivery.id);
    this.writeError = '';
    this.host.requestUpdate();
    try {
      const fresh = await this.host.api.webhookDeliveries.retry(delivery.id);
      const data = this.deliveries.data;
      if (data) this.deliveries.data = { ...data, items: data.items.map((item) => (item.id === fresh.id ? fresh : item)) };
      this.host.announce(text.t('deliveryRetried', { event: fresh.eventType, status: text.t(`delivery_${fresh.status}`), response: this.response(fresh) }));
    } catch (error) {
      if (!this.host.handleAuthError(error)) {
        this.writeError = errorMessage(text, error);
        this.host.announce(this.writeError);
      }
    } finally {
      this.retrying.delete(delivery.id);
      this.host.requestUpdate();
    }
  }

  /** How the endpoint last answered: `HTTP 200 · 42 ms`, the reason no answer came, or `—`. */
  private response(delivery: WebhookDelivery): string {
    const attempt = delivery.attempts.at(-1);
    if (!attempt) return '—';
    const t = this.host.text.t.bind(this.host.text);
    const answer = attempt.statusCode !== null ? t('httpStatus', { code: attempt.statusCode }) : (attempt.error ?? t('noResponse'));
    const detail = attempt.statusCode !== null && attempt.error && !/^HTTP \d+$/.test(attempt.error) ? ` (${attempt.error})` : '';
    return `${answer}${detail} · ${t('durationMs', { ms: this.host.text.count(attempt.durationMs) })}`;
  }

  private async copySecret(secret: string): Promise<void> {
    this.copyFailed = false;
    const copied = await copyToClipboard(this.host, secret, this.host.text.t('copiedSecret'), '#wh-secret', () => {
      this.copyFailed = true;
    });
    if (copied) this.flash.show('secret');
  }

  private columns(): TableColumn<WebhookDelivery>[] {
    const text = this.host.text;
    const t = text.t.bind(text);
    return [
      {
        label: t('colEvent'),
        rowHeader: true,
        class: 'event-cell',
        cell: (delivery) => html`<span class="mono">${eventName(delivery.eventType)}</span><span class="sub mono" part="event-id">${delivery.eventId}</span>`,
      },
      {
        label: t('colStatus'),
        cell: (delivery) =>
          html`<span part="badge delivery-status status-${delivery.status}" class="badge ${DELIVERY_TONES[delivery.status]}">${t(`delivery_${delivery.status}`)}</span>`,
      },
      { label: t('colAttempts'), class: 'num', cell: (delivery) => text.count(delivery.attemptCount) },
      { label: t('colResponse'), class: 'response-cell', cell: (delivery) => html`<span part="delivery-response">${this.response(delivery)}</span>` },
      {
        label: t('colNextRetry'),
        class: 'date',
        cell: (delivery) => html`<span part="next-retry">${delivery.nextAttemptAt ? text.shortDateTime(delivery.nextAttemptAt) : '—'}</span>`,
      },
      { label: t('colDate'), class: 'date', cell: (delivery) => text.shortDateTime(delivery.createdAt) },
      {
        label: t('colActions'),
        labelHidden: true,
        class: 'actions',
        cell: (delivery) => {
          const busy = this.retrying.has(delivery.id);
          return html`<button type="button" part="button retry-delivery" class="small" ?disabled=${busy}
            aria-label=${t('retryNamed', { event: delivery.eventType, date: text.shortDateTime(delivery.createdAt) })} @click=${() => this.retry(delivery)}>
            ${busy ? t('retrying') : t('retry')}
          </button>`;
        },
      },
    ];
  }

  private renderSecret(secret: string): TemplateResult {
    const t = this.host.text.t.bind(this.host.text);
    const copied = this.flash.current === 'secret';
    return html`<section part="endpoint-secret" class="card secret-card" aria-labelledby="wh-secret-heading">
      <h3 id="wh-secret-heading" tabindex="-1">${t('secretTitle')}</h3>
      <p part="secret-warning" class="warning"><strong>${t('secretWarning')}</strong></p>
      <p id="wh-secret-hint" class="hint">${t('secretHint')}</p>
      <div class="copy-row">
        <label for="wh-secret" class="visually-hidden">${t('secretTitle')}</label>
        <!-- A text area, so that the whole secret shows (wrapped) on a phone: a person may copy it by hand. -->
        <textarea id="wh-secret" part="secret" class="mono" readonly rows="1" spellcheck="false" .value=${secret} aria-describedby="wh-secret-hint"
          @focus=${(event: Event) => (event.target as HTMLTextAreaElement).select()}></textarea>
        <button type="button" part="button copy-secret" aria-describedby=${this.copyFailed ? 'wh-secret-failed' : nothing} @click=${() => this.copySecret(secret)}>
          ${copied ? html`<span aria-hidden="true">✓</span> ${t('copied')}` : t('copySecret')}
        </button>
      </div>
      ${this.copyFailed ? html`<p id="wh-secret-failed" part="field-error">${t('copyFailed')}</p>` : nothing}
      <div class="form-actions">
        <button type="button" part="button primary secret-saved" class="primary" @click=${() => {
          this.dismissSecret();
          this.host.focusAfterRender('#webhook-detail-heading');
        }}>${t('secretSaved')}</button>
      </div>
    </section>`;
  }

  private renderDeleteConfirm(endpoint: WebhookEndpoint): TemplateResult {
    const t = this.host.text.t.bind(this.host.text);
    return html`<section part="delete-confirm" class="card danger-card" aria-labelledby="wh-delete-heading">
      <h3 id="wh-delete-heading" tabindex="-1">${t('deleteEndpointTitle')}</h3>
      <p>${t('deleteEndpointBody', { url: endpoint.url })}</p>
      <div class="form-actions">
        <button type="button" part="button cancel-delete" ?disabled=${this.busy === 'delete'} @click=${() => this.cancelDelete()}>${t('cancel')}</button>
        <button type="button" part="button danger confirm-delete" class="danger" ?disabled=${this.busy === 'delete'} @click=${() => this.confirmDelete()}>
          ${this.busy === 'delete' ? t('deleting') : t('confirmDeleteEndpoint')}
        </button>
      </div>
    </section>`;
  }

  render(): TemplateResult {
    const endpoint = this.endpoint;
    const text = this.host.text;
    const t = text.t.bind(text);
    if (!endpoint) return loadingPlaceholder(text);
    return html`<article part="webhook-detail" class="detail" aria-labelledby="webhook-detail-heading" aria-busy=${this.resource.loading ? 'true' : 'false'}>
      ${backButton(t('backToEndpoints'), () => this.actions.back())}
      <header class="detail-head">
        <div>
          <h2 id="webhook-detail-heading" class="endpoint-heading" tabindex="-1">${endpoint.url}</h2>
          <p class="meta">
            ${endpointBadge(text, endpoint)}
            <span>${t('createdOn', { date: text.shortDateTime(endpoint.createdAt) })}</span>
          </p>
          ${endpoint.description ? html`<p class="description">${endpoint.description}</p>` : nothing}
          <p part="endpoint-events" class="events-line"><span class="muted">${t('colEvents')}:</span> ${eventsSummary(text, endpoint.events)}</p>
        </div>
        <div class="head-actions">
          <button type="button" part="button primary send-test" class="primary" ?disabled=${!!this.busy} @click=${() => this.sendTest()}>
            ${this.busy === 'test' ? t('sendingTest') : t('sendTest')}
          </button>
          <button type="button" part="button toggle-endpoint" ?disabled=${!!this.busy} @click=${() => this.toggle()}>
            ${t(endpoint.isActive ? 'disable' : 'enable')}
          </button>
          <button type="button" part="button edit-endpoint" ?disabled=${!!this.busy} @click=${() => this.actions.edit(endpoint)}>${t('edit')}</button>
          <button type="button" part="button roll-secret" ?disabled=${!!this.busy} @click=${() => this.roll()}>${t('rollSecret')}</button>
          <button type="button" part="button delete-endpoint" class="danger-outline" ?disabled=${!!this.busy} aria-expanded=${this.confirmingDelete ? 'true' : 'false'}
            @click=${() => this.askDelete()}>${t('delete')}</button>
        </div>
      </header>
      ${this.secret ? this.renderSecret(this.secret) : nothing}
      ${this.confirmingDelete ? this.renderDeleteConfirm(endpoint) : nothing}
      ${errorBox(text, this.resource.error, { retry: () => this.reload() })} ${errorBox(text, this.writeError)}
      ${
        this.testResult
          ? html`<p part="test-result" class="result ${this.testResult.ok ? 'ok' : 'bad'}">
            <span aria-hidden="true">${this.testResult.ok ? '✓' : '⚠'}</span> ${this.testResult.message}
          </p>`
          : nothing
      }
      <section part="deliveries" class="deliveries" aria-labelledby="wh-deliveries">
        <div class="toolbar">
          <h3 id="wh-deliveries" tabindex="-1">${t('deliveriesTitle')}</h3>
          <button type="button" part="button refresh-deliveries" class="ghost" ?disabled=${this.deliveries.loading} @click=${() => this.deliveries.load({ announce: true })}>
            ${t('refresh')}
          </button>
        </div>
        <div part="delivery-filters" class="filters" role="group" aria-label=${t('deliveriesTitle')}>
          ${selectFilter(this.deliveries, 'status', {
            id: 'wh-delivery-status',
            part: 'filter-delivery-status',
            label: t('filterStatus'),
            any: t('statusAny'),
            choices: WEBHOOK_DELIVERY_STATUSES.map((status) => [status, t(`delivery_${status}`)]),
          })}
        </div>
        ${pagedTable({
          host: this.host,
          list: this.deliveries,
          label: t('deliveriesTitle'),
          part: 'deliveries-table',
          rowPart: 'delivery-row',
          columns: this.columns(),
          empty: t('noDeliveries'),
          emptyFiltered: t('noDeliveriesMatch'),
          paginationPart: 'deliveries-pagination',
          heading: '#wh-deliveries',
        })}
      </section>
    </article>`;
  }
}
