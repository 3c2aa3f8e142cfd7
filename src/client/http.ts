/**
 * The one request function every client resource goes through: builds the URL, sends JSON, maps
 * failures to the error classes and parses every success with the caller's parser.
 * No zod, no DOM, no Node: this file is on the checkout's browser path.
 */
import { PaylinkError, PaylinkNetworkError, PaylinkServerError, errorFromResponse } from './errors.js';

/** Per-call options of every client method. */
export interface RequestOptions {
  /** Sent as `Idempotency-Key`: a retry with the same key is applied once. */
  idempotencyKey?: string;
  /** Aborts the request. */
  signal?: AbortSignal;
}

export interface TransportOptions {
  /** Where the API lives: the service (`https://api.example.com`) or a proxy base (`/paylink/admin`). */
  baseUrl: string;
  /** Sent as `X-API-KEY`. Server-side only: never give a browser an API key. */
  apiKey?: string | undefined;
  /** Sent as `Authorization: Bearer …` (for a proxy's admin routes). */
  token?: string | undefined;
  /** The fetch to use; defaults to the global one. Tests inject a fake. */
  fetch?: typeof fetch | undefined;
  /** Fetch `credentials` mode (e.g. `include` to send the merchant's cookies to a proxy). */
  credentials?: RequestCredentials | undefined;
}

export interface Transport {
  readonly baseUrl: string;
  request<T>(method: string, path: string, parse: (data: unknown) => T, init?: CallInit): Promise<T>;
  /** Builds an absolute URL for `path` (used for EventSource). */
  url(path: string, query?: Record<string, unknown>): string;
  readonly fetch: typeof fetch;
  readonly options: TransportOptions;
}

export interface CallInit extends RequestOptions {
  query?: Record<string, unknown> | undefined;
  body?: unknown;
}

export function createTransport(options: TransportOptions): Transport {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  const url = (path: string, query?: Record<string, unknown>) => {
    let full = baseUrl + path;
    if (query) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) {
        if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
      }
      const text = params.toString();
      if (text) full += `?${text}`;
    }
    return full;
  };

  async function request<T>(method: string, path: string, parse: (data: unknown) => T, init: CallInit = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (init.idempotencyKey) headers['idempotency-key'] = init.idempotencyKey;

    let response: Response;
    try {
      response = await fetchImpl(url(path, init.query), {
        method,
        headers,
        body: init.body === undefined ? null : JSON.stringify(init.body),
        signal: init.signal ?? null,
        ...(options.credentials ? { credentials: options.credentials } : {}),
      });
    } catch (cause) {
      if ((cause as { name?: string })?.name === 'AbortError') throw cause;
      throw new PaylinkNetworkError('Could not reach the Paylink API', 0, 'network_error', [], { cause });
    }

    const text = await response.text().catch(() => '');
    let data: unknown = undefined;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        if (response.ok) throw new PaylinkServerError('The API answered with something that is not JSON', response.status, 'invalid_response');
      }
    }
    if (!response.ok) throw errorFromResponse(response.status, data, response.headers.get('retry-after'));
    try {
      return parse(data);
    } catch (cause) {
      if (cause instanceof PaylinkError) throw cause;
      throw new PaylinkServerError('The API answered with an unexpected shape', response.status, 'invalid_response', [], { cause });
    }
  }

  return { baseUrl, request, url, fetch: fetchImpl, options };
}
