/** A fixed-duration load with autocannon: requests/s and latency percentiles. */
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  connections?: number;
  durationSeconds?: number;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 100,
    duration: options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 5),
    method: options.method ?? 'GET',
    body: options.body,
    headers: { accept: 'application/json', ...(options.body ? { 'content-type': 'application/json' } : {}), ...options.headers },
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
