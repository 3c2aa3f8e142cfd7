/** `/v1/checkout/*`: the keyless API the checkout element calls (DESIGN §4, public checkout API). */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { RecordVisitInput } from '../../../core/schemas.js';
import { type AppEnv, type ServiceDeps, parseWith, readJsonBody } from '../context.js';
import type { LinkCache } from '../link-cache.js';
import { recordVisit, toPublicLink } from '../payment-links.js';

export function checkoutRoutes(deps: ServiceDeps, links: LinkCache) {
  const { db, chain, publicUrl } = deps;
  return new Hono<AppEnv>()
    .get('/:slug', async (c) => {
      const row = await links.get(c.req.param('slug'));
      return c.json(toPublicLink(row, publicUrl, chain, deps.now()));
    })
    .post('/:slug/visits', async (c) => {
      const { visitId = randomUUID() } = parseWith(RecordVisitInput, await readJsonBody(c));
      const counted = await recordVisit(db, c.req.param('slug'), visitId);
      return c.json({ counted, visitId }, 200);
    });
}
