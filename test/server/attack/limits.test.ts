/**
 * Limits against abuse, the fast half: the service's limits on connections, event streams and public writes, over
 * real sockets with small caps and short timeouts (the attacks at full size are test/hard/attacks.test.ts).
 * The attacker binds 127.0.0.2 (and neighbours), the customer 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, call, callFrom, standardLinkBody, startTestService, type ApiResponse, type TestService } from '../../support/service.js';
import { openEventStreamFrom, parseRawAnswer, rawConnection, until } from '../../support/attack.js';

const ATTACKER = '127.0.0.2';
const CUSTOMER = '127.0.0.1';

async function linkOf(t: TestService, key: string): Promise<{ id: string; slug: string }> {
  const created = await call(t.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody({ fiatAmount: 10, fiatCurrency: 'USD' }) });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

async function sessionOf(t: TestService, slug: string, from = CUSTOMER): Promise<string> {
  const started = await callFrom(from, t.url, 'POST', `/v1/checkout/${slug}/sessions`, { body: { assetId: 'USDT' } });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  return started.body.id;
}

const count = async (t: TestService, sql: string): Promise<number> => (await t.db.query<{ n: number }>(`SELECT (${sql})::int AS n`)).rows[0]!.n;

describe('slow requests (pglite)', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService('pglite', {
      payoutWorker: false,
      headersTimeoutMs: 400,
      bodyTimeoutMs: 800,
      connectionsCheckIntervalMs: 50,
      sseHeartbeatMs: 150,
    });
  });
  after(() => t.close());

  it('slow headers are cut at the headers timeout with a 408 in the one error shape', async () => {
    const slow = rawConnection(t.url, ATTACKER, 'GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const { data, ms } = await slow.closed;
    const answer = parseRawAnswer(data);
    assert.equal(answer.status, 408);
    assert.equal(answer.body.code, 'request_timeout');
    assert.equal(answer.body.statusCode, 408);
    assert.ok(ms >= 350 && ms < 5000, `closed after ${ms} ms`);
  });

  it('a slow body is cut at the body timeout, and nothing it carried is written', async () => {
    const { key } = await t.newKey();
    const link = await linkOf(t, key);
    const body = JSON.stringify({ visitId: 'slow-visitor-1' });
    const slow = rawConnection(
      t.url,
      ATTACKER,
      `POST /v1/checkout/${link.slug}/visits HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 50}\r\n\r\n${body}`,
    );
    const { data, ms } = await slow.closed;
    assert.equal(parseRawAnswer(data).status, 408);
    assert.ok(ms >= 750 && ms < 5000, `closed after ${ms} ms`);
    assert.equal(await count(t, `SELECT count(*) FROM link_visits WHERE link_id = '${link.id}'`), 0);
  });

  it('an event stream outlives both timeouts and still hears changes', async () => {
    const { key } = await t.newKey();
    const link = await linkOf(t, key);
    const id = await sessionOf(t, link.slug);
    const opened = Date.now();
    const stream = await openEventStreamFrom(t.url, `/v1/checkout/sessions/${id}/events`);
    try {
      assert.equal(stream.status, 200);
      assert.equal((await stream.next()).status, 'awaiting_payment');
      // Time must pass here: the stream has to outlive the body timeout (800 ms), hearing heartbeats meanwhile.
      await until(() => stream.ended || (Date.now() - opened > 1_000 && stream.heartbeats >= 3), 'three heartbeats, past the body timeout', 10_000);
      assert.equal(stream.ended, false, 'the stream is still open past the body timeout');
      const paid = await call(t.url, 'POST', `/v1/checkout/sessions/${id}/simulate-payment`, { body: {} });
      assert.equal(paid.status, 200);
      assert.equal((await stream.next()).status, 'paid');
    } finally {
      stream.close();
    }
  });

  it('the heartbeat reads once per session for all of its streams, and reaches each', async () => {
    const { key } = await t.newKey();
    const link = await linkOf(t, key);
    const id = await sessionOf(t, link.slug);
    const streams = await Promise.all([1, 2, 3, 4].map((i) => openEventStreamFrom(t.url, `/v1/checkout/sessions/${id}/events`, `127.0.2.${i}`)));
    try {
      for (const stream of streams) await stream.next();
      const reads = t.service.sessionEvents.reads;
      await until(() => streams.every((stream) => stream.heartbeats >= 2), 'two heartbeats on every stream', 10_000, {
        explain: () => streams.map((stream) => stream.heartbeats).join(' '),
      });
      assert.ok(
        t.service.sessionEvents.reads - reads <= Math.max(...streams.map((stream) => stream.heartbeats)) + 1,
        'one read per heartbeat, not one per stream',
      );
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});

describe('connections per client and in total (pglite)', () => {
  const PROXY = '127.0.0.3';
  let t: TestService;
  before(async () => {
    t = await startTestService('pglite', { payoutWorker: false, maxConnectionsPerClient: 2, trustProxy: [PROXY] });
  });
  after(() => t.close());

  it('a client past its cap gets a quick 503 in the one shape and is closed; other clients are served', async () => {
    // Connections of the earlier calls may still be closing on the server's side: start from none.
    await until(() => t.service.openConnections === 0, 'earlier connections to close');
    const base = 0;
    const held = Array.from({ length: 2 }, () => rawConnection(t.url, ATTACKER));
    try {
      await until(() => t.service.openConnections === base + 2, 'the two held connections');
      const refused = await rawConnection(t.url, ATTACKER).closed;
      const answer = parseRawAnswer(refused.data);
      assert.equal(answer.status, 503);
      assert.deepEqual(answer.body, {
        status: 'error',
        statusCode: 503,
        code: 'too_many_connections',
        message: 'Too many open connections from your address; retry in 5 s',
      });
      assert.equal(answer.headers['retry-after'], '5');
      assert.equal(answer.headers.connection, 'close');
      assert.ok(refused.ms < 1500, `answered and closed in ${refused.ms} ms`);

      assert.equal((await callFrom(CUSTOMER, t.url, 'GET', '/healthz')).status, 200, 'the customer is served');
      assert.equal((await callFrom('127.0.0.4', t.url, 'GET', '/healthz')).status, 200, 'another client is served');

      held[0]!.socket.destroy();
      await held[0]!.closed;
      await until(() => t.service.openConnections === base + 1, 'the freed slot');
      assert.equal((await callFrom(ATTACKER, t.url, 'GET', '/healthz')).status, 200, 'a freed slot is taken again');
    } finally {
      for (const connection of held) connection.socket.destroy();
      await Promise.all(held.map((connection) => connection.closed));
    }
  });

  it("a trusted proxy's connections are not capped per address; its clients' requests in flight are, by X-Forwarded-For", async () => {
    const slowFrom = (client: string) =>
      rawConnection(
        t.url,
        PROXY,
        `POST /v1/checkout/x/visits HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${client}\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{`,
      );
    // Connections of the earlier calls may still be closing on the server's side: start from none.
    await until(() => t.service.openConnections === 0, 'earlier connections to close');
    const base = 0;
    let requests = 0;
    const counted = () => requests++;
    t.service.server.on('request', counted);
    const inFlight = [slowFrom('198.51.100.7'), slowFrom('198.51.100.7')];
    try {
      await until(() => t.service.openConnections === base + 2, 'the two requests in flight');
      await until(() => requests === 2, 'their headers parsed');
      const third = await callFrom(PROXY, t.url, 'GET', '/healthz', { headers: { 'x-forwarded-for': '198.51.100.7' } });
      assert.equal(third.status, 503, 'the forwarded client has its two requests in flight');
      assert.equal(third.body.code, 'too_many_connections');
      assert.equal(
        (await callFrom(PROXY, t.url, 'GET', '/healthz', { headers: { 'x-forwarded-for': '198.51.100.8' } })).status,
        200,
        "another of the proxy's clients is served",
      );
      assert.equal((await callFrom(PROXY, t.url, 'GET', '/healthz')).status, 200, 'the proxy holds four connections, past the per-address cap of two');
      // An untrusted peer's X-Forwarded-For is ignored: its own address is capped.
      const opened = t.service.openConnections;
      const untrusted = [rawConnection(t.url, ATTACKER), rawConnection(t.url, ATTACKER)];
      await until(() => t.service.openConnections === opened + 2, "the untrusted peer's connections");
      const refused = await callFrom(ATTACKER, t.url, 'GET', '/healthz', { headers: { 'x-forwarded-for': '203.0.113.99' } });
      assert.equal(refused.status, 503);
      for (const connection of untrusted) connection.socket.destroy();
      await Promise.all(untrusted.map((connection) => connection.closed));
    } finally {
      t.service.server.off('request', counted);
      for (const connection of inFlight) connection.socket.destroy();
    }
  });
});

describe('the total connection cap (pglite)', () => {
  it('past the total cap every new connection gets 503 server_busy until others close', async () => {
    const t = await startTestService('pglite', { payoutWorker: false, maxConnectionsTotal: 3 });
    const held = ['127.0.0.2', '127.0.0.3', '127.0.0.4'].map((address) => rawConnection(t.url, address));
    try {
      await until(() => t.service.openConnections === 3, 'three held connections');
      const refused = await rawConnection(t.url, '127.0.0.5', 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n').closed;
      const answer = parseRawAnswer(refused.data);
      assert.equal(answer.status, 503);
      assert.equal(answer.body.code, 'server_busy');
      assert.equal(answer.headers['retry-after'], '5');
      held[1]!.socket.destroy();
      await held[1]!.closed;
      await until(() => t.service.openConnections === 2, 'the freed connection');
      assert.equal((await callFrom('127.0.0.5', t.url, 'GET', '/healthz')).status, 200);
    } finally {
      for (const connection of held) connection.socket.destroy();
      await t.close();
    }
  });
});

describe('event streams per client and in total (pglite)', () => {
  let t: TestService;
  let slug: string;
  before(async () => {
    t = await startTestService('pglite', { payoutWorker: false, maxEventStreamsPerClient: 2, maxEventStreamsTotal: 3, sseHeartbeatMs: 60_000 });
    slug = (await linkOf(t, (await t.newKey()).key)).slug;
  });
  after(() => t.close());

  it('past its cap a client gets 429, past the total everyone gets 503, both with Retry-After; open streams are never dropped', async () => {
    const id = await sessionOf(t, slug);
    const path = `/v1/checkout/sessions/${id}/events`;
    const open = [await openEventStreamFrom(t.url, path, ATTACKER), await openEventStreamFrom(t.url, path, ATTACKER)];
    try {
      assert.deepEqual(
        open.map((stream) => stream.status),
        [200, 200],
      );
      const perClient = await openEventStreamFrom(t.url, path, ATTACKER);
      assert.equal(perClient.status, 429);
      assert.equal(perClient.headers['retry-after'], '5');
      assert.deepEqual(perClient.body, { status: 'error', statusCode: 429, code: 'too_many_streams', message: 'Too many open event streams; retry in 5 s' });

      open.push(await openEventStreamFrom(t.url, path, CUSTOMER));
      assert.equal(open[2]!.status, 200, 'the customer has a stream of its own');
      const total = await openEventStreamFrom(t.url, path, '127.0.0.4');
      assert.equal(total.status, 503);
      assert.equal(total.body.code, 'streams_unavailable');
      assert.equal(total.headers['retry-after'], '5');

      for (const stream of open) assert.equal((await stream.next()).status, 'awaiting_payment');
      assert.equal((await call(t.url, 'POST', `/v1/checkout/sessions/${id}/simulate-payment`, { body: {} })).status, 200);
      for (const stream of open) assert.equal((await stream.next()).status, 'paid', 'every admitted stream still hears the payment');
      // A paid session's streams end, which frees their slots.
      await until(() => open.every((stream) => stream.ended), "the paid session's streams to end");
      // The server frees their slots once it has closed its side too: a new stream is admitted soon after.
      await until(async () => {
        const again = await openEventStreamFrom(t.url, path, '127.0.0.4');
        again.close();
        assert.ok(again.status === 200 || again.status === 503, `a new stream: ${again.status}`);
        return again.status === 200;
      }, 'a slot freed by the ended streams');
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it('a refused stream never reads the session (no database work for a refusal)', async () => {
    const id = await sessionOf(t, slug);
    const path = `/v1/checkout/sessions/${id}/events`;
    const open = [await openEventStreamFrom(t.url, path, ATTACKER), await openEventStreamFrom(t.url, path, ATTACKER)];
    try {
      await open[0]!.next();
      await open[1]!.next();
      const reads = t.service.sessionEvents.reads;
      for (let i = 0; i < 20; i++) assert.equal((await openEventStreamFrom(t.url, path, ATTACKER)).status, 429);
      assert.equal(t.service.sessionEvents.reads, reads);
    } finally {
      for (const stream of open) stream.close();
    }
  });
});

for (const backend of backends()) {
  describe(`one database read per session change (${backend})`, () => {
    let t: TestService;
    before(async () => {
      t = await startTestService(backend, { payoutWorker: false, maxEventStreamsPerClient: 100, sseHeartbeatMs: 60_000 });
    });
    after(() => t.close());

    it('60 streams on one session: a payment costs one shared read, and every stream hears it', async () => {
      const link = await linkOf(t, (await t.newKey()).key);
      const id = await sessionOf(t, link.slug);
      const streams = await Promise.all(
        Array.from({ length: 60 }, (_, i) => openEventStreamFrom(t.url, `/v1/checkout/sessions/${id}/events`, `127.0.1.${1 + i}`)),
      );
      try {
        for (const stream of streams) assert.equal((await stream.next()).status, 'awaiting_payment');
        const joins = t.service.sessionEvents.reads;
        assert.ok(joins <= 60, `joining streams share their reads too (${joins} reads for 60 streams)`);
        const paid = await call(t.url, 'POST', `/v1/checkout/sessions/${id}/simulate-payment`, { body: { amount: '4' } });
        assert.equal(paid.body.status, 'underpaid');
        for (const stream of streams) assert.equal((await stream.next()).status, 'underpaid');
        const reads = t.service.sessionEvents.reads - joins;
        assert.ok(reads >= 1 && reads <= 2, `${reads} reads for one change watched by 60 streams`);
      } finally {
        for (const stream of streams) stream.close();
      }
    });
  });
}

describe('public writes per client (pglite)', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService('pglite', {
      payoutWorker: false,
      sessionRateLimit: { burst: 3, perSecond: 0.001 },
      visitRateLimit: { burst: 45, perSecond: 0.001 },
      maxVisitsPerClient: 5,
    });
  });
  after(() => t.close());

  it('session starts past the rate limit are a 429 with Retry-After, written nowhere; another client is served', async () => {
    const link = await linkOf(t, (await t.newKey()).key);
    const statuses: number[] = [];
    let refusal: ApiResponse | undefined;
    for (let i = 0; i < 6; i++) {
      const res = await callFrom(ATTACKER, t.url, 'POST', `/v1/checkout/${link.slug}/sessions`, { body: { assetId: 'USDT' } });
      statuses.push(res.status);
      if (res.status === 429) refusal = res;
    }
    assert.deepEqual(statuses, [201, 201, 201, 429, 429, 429]);
    assert.equal(refusal!.body.code, 'rate_limited');
    assert.ok(Number(refusal!.headers.get('retry-after')) >= 1);
    assert.equal(await count(t, `SELECT count(*) FROM checkout_sessions WHERE link_id = '${link.id}'`), 3, 'refused starts wrote nothing');
    assert.equal((await callFrom(CUSTOMER, t.url, 'POST', `/v1/checkout/${link.slug}/sessions`, { body: { assetId: 'USDT' } })).status, 201);
  });

  it("one client's random visitIds add at most its share to visitedCount, and write nothing past it", async () => {
    const { key } = await t.newKey();
    const link = await linkOf(t, key);
    const answers = [];
    for (let i = 0; i < 40; i++)
      answers.push(await callFrom('127.0.0.3', t.url, 'POST', `/v1/checkout/${link.slug}/visits`, { body: { visitId: `attacker-${i}-${Math.random()}` } }));
    assert.ok(answers.every((res) => res.status === 200));
    assert.equal(answers.filter((res) => res.body.counted).length, 5);
    assert.equal(await count(t, `SELECT count(*) FROM link_visits WHERE link_id = '${link.id}'`), 5);
    const customer = await callFrom(CUSTOMER, t.url, 'POST', `/v1/checkout/${link.slug}/visits`, { body: {} });
    assert.equal(customer.body.counted, true, 'a customer still counts');
    const read = await call(t.url, 'GET', `/v1/payment-link/${link.id}/single`, { key });
    assert.equal(read.body.visitedCount, 6);
    // A repeat visitId does not use up the share.
    const other = await linkOf(t, key);
    for (let i = 0; i < 10; i++) await callFrom('127.0.0.4', t.url, 'POST', `/v1/checkout/${other.slug}/visits`, { body: { visitId: 'same-visitor-id' } });
    const fresh = await callFrom('127.0.0.4', t.url, 'POST', `/v1/checkout/${other.slug}/visits`, { body: { visitId: 'another-visitor' } });
    assert.equal(fresh.body.counted, true);
    // An unknown link is still a 404 past the share.
    assert.equal((await callFrom('127.0.0.3', t.url, 'POST', '/v1/checkout/NoSuchLink/visits', { body: {} })).status, 404);
  });

  it('visits past the rate limit are a 429 before the body is read', async () => {
    const link = await linkOf(t, (await t.newKey()).key);
    const statuses = [];
    for (let i = 0; i < 47; i++)
      statuses.push((await callFrom('127.0.0.5', t.url, 'POST', `/v1/checkout/${link.slug}/visits`, { rawBody: 'not json at all' })).status);
    assert.deepEqual([...new Set(statuses.slice(0, 45))], [400]);
    assert.deepEqual(statuses.slice(45), [429, 429]);
  });
});

describe('default limits (pglite)', () => {
  it('by default the limits are on: the 21st session start in a burst from one address is refused', async () => {
    const t = await startTestService('pglite', {
      payoutWorker: false,
      sessionRateLimit: undefined,
      visitRateLimit: undefined,
      maxVisitsPerClient: undefined,
      env: {},
    });
    try {
      const link = await linkOf(t, (await t.newKey()).key);
      const statuses = [];
      for (let i = 0; i < 21; i++)
        statuses.push((await callFrom(ATTACKER, t.url, 'POST', `/v1/checkout/${link.slug}/sessions`, { body: { assetId: 'USDT' } })).status);
      assert.equal(statuses.filter((status) => status === 201).length, 20);
      assert.equal(statuses.at(-1), 429);
    } finally {
      await t.close();
    }
  });
});
