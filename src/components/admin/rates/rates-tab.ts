/**
 * The rates tab: each code the service prices against the US dollar (`USDT/USD`, `USD/NGN`), the value
 * quoted now, the spread of its sources, each source's latest value and age and whether it agrees,
 * and whether the code is quoted or why not (`GET /v1/rates`). Read only: a held move is accepted with
 * `paylink rates accept`, which the reason's sentence names. Read again each time the tab is shown.
 */
import { html, type TemplateResult } from 'lit/html.js';
import type { RatesView } from '../../../core/schemas.js';
import type { AdminHost, AdminTab } from '../admin-context.js';
import { ResourceController } from '../resource-controller.js';
import { errorBox, itemsTable } from '../templates.js';

type Market = RatesView['markets'][number];
/** A market's or a source's state, each with its text (`rate_quoted`, `rate_held`, `rate_agrees`, …). */
type RateState = NonNullable<Market['reason']> | Market['sources'][number]['status'] | 'quoted';

export class RatesTab implements AdminTab {
  readonly label = 'tabRates';
  private readonly rates: ResourceController<RatesView>;

  constructor(private readonly host: AdminHost) {
    this.rates = new ResourceController(host, { fetch: (signal) => host.api.rates.get({ signal }) });
  }

  load(): Promise<void> {
    return this.rates.load();
  }

  shown(visible: boolean): void {
    if (visible) void this.rates.load({ quiet: true });
  }

  render(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const view = this.rates.data;
    const number = (value: string | null, percent?: 'percent') => (value ? text.number(value, { maximumSignificantDigits: 6, style: percent }) : '—');
    const status = (state: RateState) => t(`rate_${state}`);
    // Not labelled: the tab panel around it already bears its name.
    return html`<section part="rates">
      <h2 id="rates-heading" tabindex="-1">${t('tabRates')}</h2>
      ${errorBox(text, this.rates.error, { retry: () => this.rates.load() })}
      ${
        view &&
        itemsTable<Market>({
          items: view.markets,
          label: t('tabRates'),
          part: 'rates-table',
          rowPart: 'rate-row',
          columns: [
            { label: t('colPair'), rowHeader: true, cell: (market) => market.pair },
            {
              label: t('colStatus'),
              cell: (market) =>
                html`<span part="badge rate-status" class="badge ${market.reason ? 'failed' : 'success'}">${status(market.reason ?? 'quoted')}</span
                  ><span class="sub">${market.message}</span>`,
            },
            { label: t('exchangeRate'), class: 'num', cell: (market) => number(market.perUsd) },
            { label: t('colSpread'), class: 'num', cell: (market) => number(market.spread, 'percent') },
            {
              label: t('colSources'),
              cell: (market) =>
                market.sources.map(
                  (source) =>
                    html`<div part="rate-source">
                      ${source.source} ${number(source.perUsd)}
                      <span class="sub">${source.at ? `${Math.round((Date.now() - Date.parse(source.at)) / 1000)} s · ` : ''}${status(source.status)}</span>
                    </div>`,
                ),
            },
          ],
        })
      }
    </section>`;
  }
}
