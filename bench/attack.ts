/**
 * The attacks of `npm run test:hard`, before and after: `node --import tsx bench/attack.ts --before <tree>`
 * runs each attack (test/support/hard.ts: the service and the proxy; test/support/hard-demo.ts: the demo's
 * wallet relay, sessions and headers, and the admin token) against the `paylink` command of an older tree
 * (its lib/ and dist/ built: `npm run build` there) and of this one, and prints one Markdown table per
 * attack with the figures side by side. Without `--before`, only this tree. `--only slow,streams,…` picks
 * attacks. Takes about 7 minutes per tree; not part of `npm run bench` (it needs the other tree and PostgreSQL).
 */
import { parseArgs } from 'node:util';
import {
  badInputAttack,
  slowConnectionAttack,
  streamAttack,
  writeFloodAttack,
  STREAM_ADDRESSES,
  STREAMS_PER_ADDRESS,
  type CustomerFigures,
} from '../test/support/hard.js';
import { adminTokenAttack, demoVisitorAttacks, edgesAttack, PAGE_FLOOD_COUNT, relayGasAttack, RELAY_ATTACK_MS } from '../test/support/hard-demo.js';
import { startPostgresCluster, type PostgresCluster } from '../test/support/postgres.js';

type Figures = Record<string, string | number | boolean>;

const { values } = parseArgs({ options: { before: { type: 'string' }, only: { type: 'string' } } });
const trees: Array<[string, string | undefined]> = values.before
  ? [
      ['before', values.before],
      ['after', undefined],
    ]
  : [['after', undefined]];
const only = values.only?.split(',');

function customer(figures: CustomerFigures): Figures {
  const probe = (name: keyof Pick<CustomerFigures, 'healthz' | 'linkLoad' | 'sessionStart'>) =>
    `max ${figures[name].maxMs} ms, ${figures[name].bad.length}/${figures[name].count} failed or > 1 s`;
  return {
    'customer /healthz': probe('healthz'),
    'customer link load': probe('linkLoad'),
    'customer session start': probe('sessionStart'),
    'RSS before → max (MB)': `${figures.rssBeforeMb} → ${figures.rssMaxMb}`,
  };
}

const attacks: Record<string, { title: string; run(cluster: PostgresCluster, root: string | undefined): Promise<Figures> }> = {
  slow: {
    title: 'Slow headers and slow bodies on the service: 3 addresses × 700 connections, a byte every 2 s, service open-file limit 2048, 34 s',
    async run(cluster, root) {
      const figures = await slowConnectionAttack(cluster, 'service', root);
      return { ...flood(figures.flood), 'visits written': figures.visitsWritten, 'alive after': figures.aliveAfter, ...customer(figures.customer) };
    },
  },
  'slow-proxy': {
    title: 'The same against `paylink proxy` (customer through the proxy)',
    async run(cluster, root) {
      const figures = await slowConnectionAttack(cluster, 'proxy', root);
      return { ...flood(figures.flood), 'visits written': figures.visitsWritten, 'alive after': figures.aliveAfter, ...customer(figures.customer) };
    },
  },
  streams: {
    title: `${STREAM_ADDRESSES * STREAMS_PER_ADDRESS} event streams on one session from ${STREAM_ADDRESSES} addresses, then a payment of it`,
    async run(cluster, root) {
      const figures = await streamAttack(cluster, root);
      return streamFigures(figures);
    },
  },
  'streams-uncapped': {
    title: `The same with the stream caps lifted (after only: PAYLINK_MAX_EVENT_STREAMS_*), so all ${STREAM_ADDRESSES * STREAMS_PER_ADDRESS} stay open: the cost of a payment's fan-out`,
    async run(cluster, root) {
      const figures = await streamAttack(cluster, root, {
        PAYLINK_MAX_EVENT_STREAMS_PER_CLIENT: String(STREAMS_PER_ADDRESS),
        PAYLINK_MAX_EVENT_STREAMS_TOTAL: 'off',
      });
      return streamFigures(figures);
    },
  },
  sessions: {
    title: '5,000 session starts from one address (16 at a time)',
    async run(cluster, root) {
      const figures = await writeFloodAttack(cluster, 'sessions', root);
      return {
        answers: JSON.stringify(figures.flood.statuses),
        'took (ms)': figures.flood.ms,
        'session rows added': figures.rowsAdded,
        ...customer(figures.customer),
      };
    },
  },
  visits: {
    title: '5,000 visits with random visitIds from one address (16 at a time)',
    async run(cluster, root) {
      const figures = await writeFloodAttack(cluster, 'visits', root);
      return {
        answers: JSON.stringify(figures.flood.statuses),
        'took (ms)': figures.flood.ms,
        'visitedCount added': figures.visitedCountAdded,
        'visit rows added': figures.rowsAdded,
        ...customer(figures.customer),
      };
    },
  },
  relay: {
    title: `The demo's wallet relay: one eth_call of a loop with 2^40 gas, and loops of 30,000,000 gas from 3 addresses for ${RELAY_ATTACK_MS / 1000} s; the chain watched for blocks`,
    async run(_cluster, root) {
      const figures = await relayGasAttack(root);
      return {
        'the 2^40 call': figures.hugeCall,
        'flood: calls sent': figures.flood.sent,
        'flood: run by the node': figures.flood.ran,
        'flood: refused by the relay': JSON.stringify(figures.flood.refused),
        'flood: slowest answer (ms)': figures.flood.maxMs,
        'blocks mined (one a second expected)': figures.blocksMined,
        'longest without a block (ms)': figures.longestWithoutBlockMs,
        'block number reads stuck > 2 s': figures.stuckReads,
      };
    },
  },
  demo: {
    title: `The demo's pages: framing headers, ${PAGE_FLOOD_COUNT.toLocaleString('en')} anonymous admin page loads from one address after a visitor signed in, 100 + 100 session starts from 127.0.0.1 with rotating X-Forwarded-For`,
    async run(_cluster, root) {
      const figures = await demoVisitorAttacks(root);
      return {
        ...Object.fromEntries(Object.entries(figures.framing).map(([page, framing]) => [`${page}: X-Frame-Options / frame-ancestors`, framing])),
        'page loads answered': JSON.stringify(figures.pageFlood.statuses),
        'page loads took (ms)': figures.pageFlood.ms,
        "the visitor's admin call after (200: still signed in)": figures.visitorAfter,
        'demo RSS before → after (MB)': `${figures.rssBeforeMb} → ${figures.rssAfterMb}`,
        'rotating X-Forwarded-For, straight to the service': JSON.stringify(figures.rotatingService),
        'rotating X-Forwarded-For, through the proxy': JSON.stringify(figures.rotatingProxy),
      };
    },
  },
  token: {
    title: 'The admin token: `paylink proxy` with PAYLINK_ADMIN_TOKEN=a; then 300 wrong bearer tokens from one address',
    async run(cluster, root) {
      const figures = await adminTokenAttack(cluster, root);
      return {
        'proxy with a one-character token': figures.shortTokenProxy,
        'wrong tokens answered': JSON.stringify(figures.guesses.statuses),
        'took (ms)': figures.guesses.ms,
        'refusals with Retry-After': figures.guesses.withRetryAfter,
        'the right token, from the guessing address': figures.rightTokenFromGuesser,
        'the right token, from another address': figures.rightTokenElsewhere,
        'log lines admin_auth_failed': figures.failureLines,
        'a guessed token in the log': figures.tokenInLog,
      };
    },
  },
  edges: {
    title: 'The API at its edges, on `paylink serve --chain sandbox`',
    async run(cluster, root) {
      const figures = await edgesAttack(cluster, root);
      return {
        'webhook endpoint at http://127.0.0.1 (sandbox)': figures.loopbackEndpoint,
        'links from two creates with one Idempotency-Key': figures.linksForOneKey,
        'fiatAmount 10.000000000000000000000000000001 as a number': figures.thirtyDecimals,
        'title with U+202E': figures.bidiTitle,
        'customer email with ?bcc=': figures.bccEmail,
      };
    },
  },
  input: {
    title: 'Bad bytes, impossible dates and hygiene (each request once), then 50 aborted uploads',
    async run(cluster, root) {
      const figures = await badInputAttack(cluster, root);
      return {
        ...figures.statuses,
        'Cache-Control of GET /v1/balance': figures.keyedCacheControl,
        "Cache-Control of the proxy's admin answer": figures.proxyAdminCacheControl,
        'rows written by these requests': figures.rowsAdded,
        'request data in the log': figures.leaked.join(', ') || 'none',
        'log lines of 50 aborted uploads': figures.abortedUploadLines,
        'of which stack frames': figures.abortedUploadStackLines,
      };
    },
  },
};

function flood(figures: Awaited<ReturnType<typeof slowConnectionAttack>>['flood']): Figures {
  return {
    'refused (503/429)': figures.refused,
    'cut by a timeout (408)': figures.timedOut,
    'closed otherwise (reset, no answer)': figures.otherwiseClosed,
    'still open at 34 s': figures.stillOpen,
    'longest a closed one lasted (ms)': figures.longestMs,
  };
}

function streamFigures(figures: Awaited<ReturnType<typeof streamAttack>>): Figures {
  return {
    'streams open': figures.flood.open,
    answers: JSON.stringify(figures.flood.statuses),
    'RSS with the streams open (MB)': figures.rssWithStreamsMb,
    'simulated payment answered in (ms)': figures.payment.paymentMs,
    'every stream heard it after (ms)': figures.payment.allHeardMs,
    'streams that heard it': `${figures.payment.heardBy}/${figures.payment.of}`,
    ...customer(figures.customer),
  };
}

const cluster = await startPostgresCluster();
try {
  for (const [name, attack] of Object.entries(attacks)) {
    if (only && !only.includes(name)) continue;
    const results: Array<[string, Figures]> = [];
    for (const [label, root] of trees) {
      if (name === 'streams-uncapped' && label === 'before') continue;
      try {
        results.push([label, await attack.run(cluster, root)]);
      } catch (error) {
        results.push([label, { error: String(error) }]);
      }
    }
    const rows = [...new Set(results.flatMap(([, figures]) => Object.keys(figures)))];
    console.log(`\n### ${attack.title}\n\n| | ${results.map(([label]) => label).join(' | ')} |\n|---|${results.map(() => '---|').join('')}`);
    for (const row of rows) console.log(`| ${row} | ${results.map(([, figures]) => String(figures[row] ?? '')).join(' | ')} |`);
  }
} finally {
  cluster.stop();
}
