/**
 * The attacks on the demo and the admin token (`npm run test:hard`), each against the `paylink` command
 * in child processes, the attacker in a process of its own from 127.0.0.2 and up (test/support/hard-demo.ts):
 * the demo's chain keeps mining while its wallet relay is asked for loops of 2^40 gas and of a block's
 * worth; a signed-in visitor stays signed in through 10,050 anonymous admin page loads from one address;
 * no page can be framed; rotating `X-Forwarded-For` does not make one visitor many; a one-character admin
 * token stops the proxy from starting, and guessing a good one is cut off after ten tries.
 * `bench/attack.ts` runs the same against an older tree and prints the figures before and after.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { anvilMissing } from '../../demo/chain.js';
import { adminTokenAttack, demoVisitorAttacks, PAGE_FLOOD_COUNT, relayGasAttack, RELAY_ATTACK_MS } from '../support/hard-demo.js';
import { postgresAvailable, startPostgresCluster, type PostgresCluster } from '../support/postgres.js';

describe('the demo under attack', () => {
  it(
    `the chain keeps mining while the wallet relay is asked for a loop of 2^40 gas and, for ${RELAY_ATTACK_MS / 1000} s, loops of a block's worth from three addresses`,
    { skip: anvilMissing(), timeout: 180_000 },
    async () => {
      const figures = await relayGasAttack();
      const say = JSON.stringify(figures);
      assert.match(figures.hugeCall, /^gas in \d+ ms$/, `the 2^40 call is refused by the relay, not run: ${say}`);
      assert.ok(Number(/in (\d+) ms/.exec(figures.hugeCall)![1]) < 2_000, `and at once: ${say}`);
      // A block a second; a loaded machine may lose a few.
      assert.ok(figures.blocksMined >= (RELAY_ATTACK_MS / 1000) * 0.6, `blocks kept coming: ${say}`);
      assert.ok(figures.longestWithoutBlockMs < 5_000, `no long gap between blocks: ${say}`);
      assert.ok(figures.flood.ran > 0, `calls within a block's gas still run: ${say}`);
      for (const kind of Object.keys(figures.flood.refused)) assert.ok(['rate', 'busy'].includes(kind), `refusals are rate limits or "busy": ${say}`);
    },
  );

  it(
    `no page can be framed; ${PAGE_FLOOD_COUNT} anonymous admin page loads evict no visitor; rotating X-Forwarded-For does not make one visitor many`,
    { timeout: 240_000 },
    async () => {
      const figures = await demoVisitorAttacks();
      const say = JSON.stringify(figures);
      for (const [page, framing] of Object.entries(figures.framing)) assert.equal(framing, "DENY / 'none'", `${page}: ${say}`);
      assert.equal(figures.pageFlood.statuses[200], PAGE_FLOOD_COUNT, `every page load answered: ${say}`);
      assert.equal(figures.visitorAfter, 200, `the visitor is still signed in: ${say}`);
      assert.ok(figures.rssAfterMb - figures.rssBeforeMb < 100, `memory stayed bounded: ${say}`);
      // The session limit: a burst of 20, then one per 5 s, for the one visitor however it names itself,
      // straight to the service or through the proxy (the same visitor: the proxy hands it over as it is).
      const created = (figures.rotatingService[201] ?? 0) + (figures.rotatingProxy[201] ?? 0);
      assert.ok(created >= 20 && created <= 24, `one visitor's allowance: ${say}`);
      assert.equal((figures.rotatingService[429] ?? 0) + (figures.rotatingProxy[429] ?? 0), 200 - created, `the rest refused: ${say}`);
    },
  );
});

describe('the admin token under attack', { skip: !postgresAvailable() && 'PostgreSQL binaries not found' }, () => {
  let cluster: PostgresCluster;
  before(async () => {
    cluster = await startPostgresCluster();
  });
  after(() => cluster?.stop());

  it(
    'a one-character token stops the proxy from starting; 300 wrong tokens from one address meet ten 401s, then 429s; each failure logged with a code, never the token',
    { timeout: 120_000 },
    async () => {
      const figures = await adminTokenAttack(cluster);
      const say = JSON.stringify(figures);
      assert.match(figures.shortTokenProxy, /^refused to start \(exit 2\): paylink proxy: PAYLINK_ADMIN_TOKEN must be at least 32 characters/, say);
      const allowedFailures = 10 + Math.ceil(figures.guesses.ms / 5_000);
      assert.ok((figures.guesses.statuses[401] ?? 0) <= allowedFailures, `at most ${allowedFailures} guesses looked at: ${say}`);
      assert.equal((figures.guesses.statuses[401] ?? 0) + (figures.guesses.statuses[429] ?? 0), 300, say);
      assert.equal(figures.guesses.withRetryAfter, figures.guesses.statuses[429], `every 429 says when to retry: ${say}`);
      assert.equal(figures.rightTokenFromGuesser, 429, `a hit from the guessing address learns nothing: ${say}`);
      assert.equal(figures.rightTokenElsewhere, 200, `the merchant elsewhere is not locked out: ${say}`);
      assert.equal(figures.failureLines, figures.guesses.statuses[401], `each failure logged: ${say}`);
      assert.equal(figures.tokenInLog, false, 'no guessed token in the log');
    },
  );
});
