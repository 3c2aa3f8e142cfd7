/**
 * The form that adds a webhook endpoint or changes one: its URL, the events it receives (all of them
 * to begin with), a description. It runs the service's own rules (`checkWebhookEndpoint` of
 * `core/rules/webhooks.ts`) on what it is about to send and shows the service's field errors beside
 * their fields. `http://` is left to the service to refuse: only it knows whether it allows local
 * endpoints (`PAYLINK_WEBHOOK_ALLOW_PRIVATE=1`, for a receiver on the developer's own machine).
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import { PaylinkValidationError } from '../../../client/errors.js';
import { checkWebhookEndpoint, WEBHOOK_EVENT_TYPES, type WebhookEventTypeName } from '../../../core/rules/webhooks.js';
import type { WebhookEndpoint, WebhookEndpointCreated } from '../../../core/schemas.js';
import { errorMessage, fieldErrorsFrom, type AdminHost } from '../admin-context.js';
import { describedBy, fieldError, ifDefined, invalid } from '../fields.js';
import { errorBox } from '../templates.js';
import { eventName } from './webhooks-view.js';

/** What the form tells its tab. */
export interface WebhookFormActions {
  /** An endpoint was added (with its secret, shown once) or changed. */
  saved(endpoint: WebhookEndpoint | WebhookEndpointCreated, created: boolean): void;
  cancelled(editing: WebhookEndpoint | undefined): void;
}

type Field = 'wh-url' | 'wh-events' | 'wh-description';

export class WebhookFormController {
  /** The endpoint being changed; undefined when adding one. */
  editing: WebhookEndpoint | undefined;
  url = '';
  events = new Set<WebhookEventTypeName>(WEBHOOK_EVENT_TYPES);
  description = '';
  errors: Partial<Record<Field, string>> = {};
  formError = '';
  saving = false;

  constructor(
    private readonly host: AdminHost,
    private readonly actions: WebhookFormActions,
  ) {}

  /** Opens the form empty (every event chosen), or filled with `endpoint` to change it. */
  open(endpoint?: WebhookEndpoint): void {
    this.editing = endpoint;
    this.url = endpoint?.url ?? '';
    this.events = new Set(endpoint?.events ?? WEBHOOK_EVENT_TYPES);
    this.description = endpoint?.description ?? '';
    this.errors = {};
    this.formError = '';
    this.saving = false;
  }

  /** The field a path of the rules or of the service's errors belongs to. */
  private fieldOf(path: string): Field | undefined {
    if (path === 'url') return 'wh-url';
    if (/^events(\.\d+)?$/.test(path)) return 'wh-events';
    if (path === 'description') return 'wh-description';
    return undefined;
  }

  private body() {
    return { url: this.url.trim(), events: WEBHOOK_EVENT_TYPES.filter((type) => this.events.has(type)), description: this.description.trim() };
  }

  private showErrors(errors: Partial<Record<Field, string>>): void {
    const t = this.host.text.t.bind(this.host.text);
    this.errors = errors;
    const count = Object.keys(errors).length;
    if (count) {
      this.host.announce(count === 1 ? t('fixFields', { count }) : t('fixFieldsMany', { count }));
      this.host.focusAfterRender('[part~="webhook-form"] [aria-invalid="true"]');
    } else if (this.formError) {
      this.host.announce(this.formError);
    }
    this.host.requestUpdate();
  }

  private async submit(event: Event): Promise<void> {
    event.preventDefault();
    if (this.saving) return;
    const t = this.host.text.t.bind(this.host.text);
    const body = this.body();
    const check = checkWebhookEndpoint(body, { allowHttp: true, requireUrl: true });
    const errors: Partial<Record<Field, string>> = {};
    for (const error of check.errors) {
      const field = this.fieldOf(error.path);
      if (field) errors[field] ??= t(error.key, { ...error.params });
    }
    this.formError = '';
    if (Object.keys(errors).length) return this.showErrors(errors);
    this.errors = {};
    this.saving = true;
    this.host.requestUpdate();
    const editing = this.editing;
    try {
      const saved = editing ? await this.host.api.webhookEndpoints.update({ id: editing.id, ...body }) : await this.host.api.webhookEndpoints.create(body);
      this.saving = false;
      this.actions.saved(saved, !editing);
    } catch (error) {
      this.saving = false;
      if (this.host.handleAuthError(error)) return;
      if (error instanceof PaylinkValidationError && error.errors.length) {
        const { fields, unclaimed } = fieldErrorsFrom(error.errors, (path) => this.fieldOf(path));
        this.formError = unclaimed.join(' ');
        this.showErrors(fields);
      } else {
        this.formError = errorMessage(this.host.text, error);
        this.showErrors({});
      }
    }
  }

  private toggleEvent(type: WebhookEventTypeName, checked: boolean): void {
    if (checked) this.events.add(type);
    else this.events.delete(type);
    this.clearError('wh-events');
  }

  private selectAll(): void {
    this.events = new Set(WEBHOOK_EVENT_TYPES);
    this.clearError('wh-events');
  }

  private clearError(field: Field): void {
    const { [field]: _, ...rest } = this.errors;
    this.errors = rest;
    this.host.requestUpdate();
  }

  render(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const editing = this.editing;
    const eventsError = this.errors['wh-events'];
    const input = (
      id: Field,
      label: string,
      hint: string,
      value: string,
      set: (value: string) => void,
      extra: { type?: string; placeholder?: string; mono?: boolean } = {},
    ) => {
      const error = this.errors[id];
      return html`<div class="field">
        <label for=${id}>${label}</label>
        <p id="${id}-hint" class="hint">${hint}</p>
        <input id=${id} part="input ${id}" type=${extra.type ?? 'text'} class=${extra.mono ? 'mono' : ''} autocomplete="off" spellcheck="false"
          placeholder=${ifDefined(extra.placeholder)} .value=${value} aria-invalid=${ifDefined(invalid(error))}
          aria-describedby=${ifDefined(describedBy(id, error, true))}
          @input=${(event: Event) => {
            set((event.target as HTMLInputElement).value);
            this.clearError(id);
          }} />
        ${fieldError(id, error)}
      </div>`;
    };
    return html`<form part="webhook-form" class="webhook-form" novalidate aria-labelledby="webhook-form-heading" @submit=${(event: Event) => this.submit(event)}>
      <h2 id="webhook-form-heading" tabindex="-1">${editing ? t('editEndpointTitle') : t('addEndpointTitle')}</h2>
      ${input('wh-url', t('endpointUrl'), t('endpointUrlHint'), this.url, (value) => (this.url = value), { type: 'url', placeholder: 'https://', mono: true })}
      <fieldset part="events" class="group events-group" aria-describedby="wh-events-hint">
        <legend>${t('eventsLegend')}</legend>
        <p id="wh-events-hint" class="hint">${t('eventsHint')}</p>
        <div class="choices event-choices">
          ${WEBHOOK_EVENT_TYPES.map(
            (type, index) => html`<label class="choice event-choice" for="wh-event-${index}">
              <input id="wh-event-${index}" type="checkbox" part="event-option" value=${type} .checked=${this.events.has(type)}
                aria-invalid=${ifDefined(invalid(eventsError))} aria-describedby="wh-event-${index}-hint${eventsError ? ' wh-events-error' : ''}"
                @change=${(event: Event) => this.toggleEvent(type, (event.target as HTMLInputElement).checked)} />
              <span><span class="mono event-name">${eventName(type)}</span><span id="wh-event-${index}-hint" class="hint">${t(`eventHint_${type}`)}</span></span>
            </label>`,
          )}
        </div>
        ${
          this.events.size < WEBHOOK_EVENT_TYPES.length
            ? html`<button type="button" part="button select-all-events" class="small" @click=${() => this.selectAll()}>${t('selectAllEvents')}</button>`
            : nothing
        }
        ${fieldError('wh-events', eventsError)}
      </fieldset>
      ${input('wh-description', t('description'), t('endpointDescriptionHint'), this.description, (value) => (this.description = value))}
      ${errorBox(text, this.formError, { part: 'form-error' })}
      <div class="form-actions">
        <button type="button" part="button cancel" ?disabled=${this.saving} @click=${() => this.actions.cancelled(editing)}>${t('cancel')}</button>
        <button type="submit" part="button primary submit-endpoint" class="primary" ?disabled=${this.saving}>
          ${this.saving ? t('saving') : editing ? t('saveChanges') : t('addEndpoint')}
        </button>
      </div>
    </form>`;
  }
}
