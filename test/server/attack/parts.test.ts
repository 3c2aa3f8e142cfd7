/**
 * Limits against abuse, the parts on their own: who a client is (one rule for the service and the proxy), the
 * stream counter, the visit share, the limits' options and environment, and the logger.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createClientAddressResolver, normalizeAddress, parseTrustProxy, TrustProxyError } from '../../../src/server/limits/client-address.js';
import {
  LIMIT_DEFAULTS,
  LimitConfigError,
  parseRateLimit,
  resolveConnectionLimits,
  resolvePublicWriteLimits,
  resolveStreamLimits,
} from '../../../src/server/limits/options.js';
import { createStreamCounter, streamRefusalError } from '../../../src/server/limits/stream-counter.js';
import { createLogger, describeError, requestIdFrom } from '../../../src/server/log.js';
import { createVisitGate } from '../../../src/server/service/sessions/visit-gate.js';

describe('client address', () => {
  it('is the peer unless X-Forwarded-For is trusted', () => {
    const none = createClientAddressResolver(undefined);
    assert.equal(none('203.0.113.5', '198.51.100.1'), '203.0.113.5');
    assert.equal(none('::ffff:203.0.113.5', null), '203.0.113.5', 'an IPv4-mapped peer is its IPv4 address');
    assert.equal(none.trusting, false);
    assert.equal(none.trustsPeer('127.0.0.1'), false);
  });

  it('with a hop count, is that entry from the right (the leftmost when the header is shorter), else the peer', () => {
    const one = createClientAddressResolver(true);
    assert.equal(one('10.0.0.1', 'spoofed, 198.51.100.7'), '198.51.100.7');
    assert.equal(one('10.0.0.1', undefined), '10.0.0.1');
    assert.ok(one.trustsPeer('203.0.113.9'), 'any peer is a proxy under a hop count');
    const two = createClientAddressResolver(2);
    assert.equal(two('10.0.0.1', 'spoofed, 198.51.100.7, 10.0.0.2'), '198.51.100.7');
    assert.equal(two('10.0.0.1', '198.51.100.7'), '198.51.100.7');
  });

  it('with a list, believes only those peers, and skips every trusted hop from the right', () => {
    const proxies = createClientAddressResolver(['10.0.0.0/8', '127.0.0.1', '2001:db8::/32']);
    assert.equal(proxies('203.0.113.5', '198.51.100.7'), '203.0.113.5', 'an untrusted peer is the client, whatever it says');
    assert.equal(proxies('10.1.2.3', '198.51.100.7'), '198.51.100.7');
    assert.equal(proxies('127.0.0.1', 'spoofed, 198.51.100.7, 10.9.9.9'), '198.51.100.7');
    assert.equal(proxies('10.1.2.3', '10.9.9.9, 10.8.8.8'), '10.9.9.9', 'all trusted: the leftmost');
    assert.equal(proxies('2001:db8::1', '[2001:db9::5]:443'), '2001:db9::5');
    assert.equal(proxies('::ffff:10.0.0.4', '198.51.100.9:5678'), '198.51.100.9');
    assert.ok(proxies.trustsPeer('10.200.0.1'));
    assert.ok(!proxies.trustsPeer('127.0.0.2'));
    const named = createClientAddressResolver(['loopback']);
    assert.ok(named.trustsPeer('127.0.0.2') && named.trustsPeer('::1') && !named.trustsPeer('192.168.1.1'));
    assert.ok(createClientAddressResolver(['private']).trustsPeer('192.168.1.1'));
  });

  it('reads PAYLINK_TRUST_PROXY, refusing what is no address or range', () => {
    assert.equal(parseTrustProxy(undefined), undefined);
    assert.equal(parseTrustProxy('0'), undefined);
    assert.equal(parseTrustProxy('false'), undefined);
    assert.equal(parseTrustProxy('true'), true);
    assert.equal(parseTrustProxy('2'), 2);
    assert.deepEqual(parseTrustProxy(' 127.0.0.1, 10.0.0.0/8 ,loopback'), ['127.0.0.1', '10.0.0.0/8', 'loopback']);
    for (const bad of ['10.0.0.0/33', 'proxy.example', '300.1.1.1', '::1/129']) assert.throws(() => parseTrustProxy(bad), TrustProxyError, bad);
    assert.equal(normalizeAddress('[::1]:8080'), '::1');
    assert.equal(normalizeAddress('FE80::1%eth0'), 'fe80::1');
  });
});

describe('stream counter', () => {
  it('refuses past the client cap ("client") and past the total ("total"); releases once', () => {
    const counter = createStreamCounter(2, 3);
    const a1 = counter.acquire('a');
    const a2 = counter.acquire('a');
    assert.equal(counter.acquire('a'), 'client');
    const anonymous = counter.acquire(undefined);
    assert.equal(typeof anonymous, 'function', 'a client that cannot be told apart counts in the total only');
    assert.equal(counter.acquire('b'), 'total');
    assert.equal(counter.acquire('a'), 'client', 'a client at its own cap is told so, even when the server is full too');
    assert.equal(counter.open, 3);
    (a1 as () => void)();
    (a1 as () => void)();
    assert.equal(counter.open, 2);
    assert.equal(typeof counter.acquire('b'), 'function');
    (a2 as () => void)();
    assert.deepEqual(streamRefusalError('client').status, 429);
    assert.deepEqual(streamRefusalError('total'), {
      status: 503,
      code: 'streams_unavailable',
      message: 'The server holds all the event streams it can; retry in 5 s',
      retryAfter: '5',
    });
    assert.throws(() => createStreamCounter(2, 0), RangeError);
    assert.equal(typeof createStreamCounter(false, false).acquire('x'), 'function');
  });
});

describe('visit share', () => {
  it('gives each client its share of visits per link per window, back when a visit did not count, and forgets old pairs', () => {
    let now = 0;
    const gate = createVisitGate({ maxPerClient: 2, windowMs: 1000, maxEntries: 3, now: () => now });
    const first = gate.take('a', 'link1');
    assert.ok(first);
    assert.ok(gate.take('a', 'link1'));
    assert.equal(gate.take('a', 'link1'), false);
    assert.ok(gate.take('a', 'link2'), 'per link');
    assert.ok(gate.take('b', 'link1'), 'per client');
    first.giveBack();
    first.giveBack();
    assert.ok(gate.take('a', 'link1'), 'a visit given back frees its seat');
    assert.equal(gate.take('a', 'link1'), false);
    now = 1000;
    assert.ok(gate.take('a', 'link1'), 'a new window');
    gate.take('c', 'link1');
    assert.equal(gate.size, 3, 'bounded');
  });
});

describe('limits: options, environment, defaults', () => {
  it('options win over the environment, which wins over the defaults', () => {
    const env = {
      PAYLINK_HEADERS_TIMEOUT_MS: '5000',
      PAYLINK_MAX_CONNECTIONS_PER_CLIENT: 'off',
      PAYLINK_MAX_CONNECTIONS_TOTAL: '100',
      PAYLINK_TRUST_PROXY: '10.0.0.0/8',
    };
    assert.deepEqual(resolveConnectionLimits({ maxConnectionsTotal: 50 }, env), {
      headersTimeoutMs: 5000,
      bodyTimeoutMs: 30_000,
      connectionsCheckIntervalMs: 1000,
      maxConnectionsPerClient: false,
      maxConnectionsTotal: 50,
      trustProxy: ['10.0.0.0/8'],
    });
    assert.deepEqual(resolveConnectionLimits(), {
      headersTimeoutMs: 10_000,
      bodyTimeoutMs: 30_000,
      connectionsCheckIntervalMs: 1000,
      maxConnectionsPerClient: 128,
      maxConnectionsTotal: 4096,
      trustProxy: undefined,
    });
    assert.deepEqual(resolveStreamLimits({}, { PAYLINK_MAX_EVENT_STREAMS_PER_CLIENT: '3' }), { maxEventStreamsPerClient: 3, maxEventStreamsTotal: 1000 });
    assert.equal(resolveStreamLimits({}, {}, LIMIT_DEFAULTS.proxyMaxEventStreamsPerClient).maxEventStreamsPerClient, 4);
    assert.deepEqual(
      resolvePublicWriteLimits({}, { PAYLINK_SESSION_RATE_LIMIT: '0.5:10', PAYLINK_VISIT_RATE_LIMIT: 'off', PAYLINK_MAX_VISITS_PER_CLIENT: '2' }),
      {
        sessionRateLimit: { perSecond: 0.5, burst: 10 },
        visitRateLimit: false,
        maxVisitsPerClient: 2,
      },
    );
    assert.deepEqual(parseRateLimit('10', 'X'), { perSecond: 10, burst: 60 });
  });

  it('a bad value fails at start, with a sentence naming the variable', () => {
    assert.throws(
      () => resolveConnectionLimits({}, { PAYLINK_MAX_CONNECTIONS_TOTAL: 'lots' }),
      (error: Error) => error instanceof LimitConfigError && /PAYLINK_MAX_CONNECTIONS_TOTAL/.test(error.message),
    );
    assert.throws(() => resolveConnectionLimits({}, { PAYLINK_HEADERS_TIMEOUT_MS: '40000' }), /can't be longer than the body timeout/);
    assert.throws(() => resolvePublicWriteLimits({}, { PAYLINK_SESSION_RATE_LIMIT: 'fast' }), /PAYLINK_SESSION_RATE_LIMIT/);
    assert.throws(() => resolveConnectionLimits({}, { PAYLINK_TRUST_PROXY: 'my-proxy' }), LimitConfigError);
    assert.throws(() => resolveStreamLimits({ maxEventStreamsTotal: 0 }), RangeError);
  });
});

describe('logger', () => {
  it('writes one JSON line with a code; folds a burst of the same code into one line per interval', () => {
    const lines: string[] = [];
    let now = 0;
    const log = createLogger(
      (line) => lines.push(line),
      () => now,
    );
    log.warn('too_many_streams', 'event streams refused', { requestId: 'r1', client: '127.0.0.2', body: { secret: 1 } });
    assert.deepEqual(JSON.parse(lines[0]!), {
      time: '1970-01-01T00:00:00.000Z',
      level: 'warn',
      code: 'too_many_streams',
      message: 'event streams refused',
      requestId: 'r1',
      client: '127.0.0.2',
    });
    for (let i = 0; i < 100; i++) log.throttled('warn', 'rate_limited', 'refused', {}, 1000);
    now = 1500;
    log.throttled('warn', 'rate_limited', 'refused', {}, 1000);
    assert.equal(lines.length, 3);
    assert.equal(JSON.parse(lines[2]!).alsoSince, 99);
  });

  it("describes an error by class, SQLSTATE or Node code, quote-blanked message and stack, never the driver's extras", () => {
    const error = Object.assign(new Error(`value "ada@example.com" for 'phone' is bad`), {
      code: '23505',
      params: ['ada@example.com'],
      query: 'INSERT',
      detail: 'Key (email)=(ada@example.com)',
    });
    const described = describeError(error);
    assert.equal(described.type, 'Error');
    assert.equal(described.sqlState, '23505');
    assert.equal(described.message, `value "…" for '…' is bad`);
    assert.match(described.stack!, /^Error: value "…" for '…' is bad\n {4}at /, 'the stack starts with the blanked message, then its frames');
    assert.ok(!JSON.stringify(described).includes('ada@example.com'));
    assert.ok(!JSON.stringify(described).includes('INSERT'));
    assert.equal(describeError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })).code, 'ECONNRESET');
    assert.equal(describeError(Object.assign(new Error('x'), { code: 'EPIPE' })).sqlState, undefined);
    assert.deepEqual(describeError('a string'), { type: 'string' });
  });

  it('keeps a plain incoming request id and makes one otherwise', () => {
    assert.equal(requestIdFrom('abc-123'), 'abc-123');
    assert.match(requestIdFrom(undefined), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(requestIdFrom('bad id'), 'bad id');
    assert.notEqual(requestIdFrom('x'.repeat(129)), 'x'.repeat(129));
  });
});
