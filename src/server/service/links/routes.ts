/** The link operations of the route table (`/v1/payment-link*`), behind `X-API-KEY`. */
import { type ServiceDeps, pageMeta } from '../context.js';
import { validationError } from '../errors.js';
import type { LinkCache } from './cache.js';
import { idempotency } from '../idempotency/index.js';
import type { RoomOperations } from '../operations.js';
import { createLinkOnce, getLink, listLinks, toPaymentLink, updateLink } from './domain.js';

/** The room's handlers by operation id. */
export function paymentLinkOperations(deps: ServiceDeps, links: LinkCache) {
  const { db, publicUrl } = deps;
  return {
    createPaymentLink: {
      use: [idempotency()],
      handler: async (c) => {
        const answer = await createLinkOnce(db, c.get('principal'), c.req.valid('json'), c.get('idempotency'), deps.now(), publicUrl);
        return c.json(answer.body, answer.statusCode as 201);
      },
    },
    updatePaymentLink: async (c) => {
      const input = c.req.valid('json');
      const id = input.id ?? c.req.query('id');
      if (!id) throw validationError([{ path: 'id', message: 'Name the link to update by its id (in the body or ?id=)' }]);
      const row = await updateLink(db, c.get('principal'), id, input, deps.now());
      links.invalidate(row.slug);
      return c.json(toPaymentLink(row, publicUrl, false, deps.now()), 200);
    },
    listPaymentLinks: async (c) => {
      const query = c.req.valid('query');
      const { rows, totalItems } = await listLinks(db, c.get('principal'), query);
      return c.json({
        items: rows.map((row) => toPaymentLink(row, publicUrl, true, deps.now())),
        meta: pageMeta(totalItems, rows.length, query),
      });
    },
    getPaymentLink: async (c) => {
      const row = await getLink(db, c.get('principal'), c.req.param('id'));
      return c.json(toPaymentLink(row, publicUrl, true, deps.now()));
    },
  } satisfies RoomOperations;
}
