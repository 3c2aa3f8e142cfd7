/**
 * Requests counted and timed by route template, method and status: `paylink_http_requests_total` and
 * `paylink_http_request_duration_seconds`, for the service and the proxy. Counted in plain numbers on
 * the request's path (a map lookup and a few additions: prom-client's labelled children hash their
 * labels on every call, a microsecond a request), and handed to the registry as they are at scrape time.
 */
import type { Registry } from 'prom-client';

/** Durations' buckets, in seconds: from a cached read (a millisecond) to a slow node or database (10 s). */
export const DURATION_BUCKETS: readonly number[] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Label sets past this many are folded into one (`route="overflow"`): a guard, far above what the route tables make. */
const MAX_SERIES = 2000;

interface Series {
  labels: { route: string; method: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket, not cumulative (the last one is past the highest bound). */
  buckets: Float64Array;
}

/** The counts of one server's requests, and the two series that expose them. */
export class RequestMetrics {
  /** route → method → status → series: lookups by the strings the router hands over, no key built per request. */
  readonly #byRoute = new Map<string, Map<string, Map<number, Series>>>();
  readonly #series: Series[] = [];
  readonly #bounds: readonly number[];

  constructor(bounds: readonly number[] = DURATION_BUCKETS) {
    this.#bounds = bounds;
  }

  /** One answered request. */
  observe(route: string, method: string, status: number, seconds: number): void {
    let series = this.#byRoute.get(route)?.get(method)?.get(status);
    if (!series) series = this.#add(this.#series.length >= MAX_SERIES ? 'overflow' : route, method, status);
    series.count++;
    series.sum += seconds;
    let bucket = 0;
    while (bucket < this.#bounds.length && seconds > this.#bounds[bucket]!) bucket++;
    series.buckets[bucket]!++;
  }

  #add(route: string, method: string, status: number): Series {
    let byMethod = this.#byRoute.get(route);
    if (!byMethod) this.#byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      series = { labels: { route, method, status: String(status) }, count: 0, sum: 0, buckets: new Float64Array(this.#bounds.length + 1) };
      byStatus.set(status, series);
      this.#series.push(series);
    }
    return series;
  }

  /** Registers the two series on `registry`, with `subject` in their help ("the service", "the proxy"). */
  register(registry: Registry, subject: string, durationMeans: string): void {
    const requests = {
      name: 'paylink_http_requests_total',
      help: `HTTP requests ${subject} answered, by route template, method and status.`,
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({ ...requests, values: this.#series.map((series) => ({ value: series.count, labels: series.labels })) }),
      reset: () => {},
    };
    const durations = {
      name: 'paylink_http_request_duration_seconds',
      help: `Time ${subject} took to answer an HTTP request (${durationMeans}), by route template, method and status.`,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({
        ...durations,
        values: this.#series.flatMap((series) => {
          let cumulative = 0;
          return [
            ...[...this.#bounds, Infinity].map((bound, index) => {
              cumulative += series.buckets[index]!;
              return { metricName: `${durations.name}_bucket`, labels: { ...series.labels, le: bound === Infinity ? '+Inf' : bound }, value: cumulative };
            }),
            { metricName: `${durations.name}_sum`, labels: series.labels, value: series.sum },
            { metricName: `${durations.name}_count`, labels: series.labels, value: series.count },
          ];
        }),
      }),
      reset: () => {},
    };
    registry.registerMetric(requests as never);
    registry.registerMetric(durations as never);
  }
}
