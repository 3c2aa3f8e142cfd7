/**
 * `/v1/webhook-endpoint*` and `/v1/webhook-delivery*`, behind `X-API-KEY`. Besides the
 * contract's calls: `POST /v1/webhook-endpoint/{id}/test` sends a test event, and
 * `GET /v1/webhook-delivery/{id}` reads one delivery.
 */
import { Hono } from 'hono';
import {
  CreateWebhookEndpointInput,
  ListWebhookDeliveriesQuery,
  ListWebhookEndpointsQuery,
  UpdateWebhookEndpointInput,
} from '../../../core/schemas.js';
import { type AppEnv, jsonBody, queryOf } from '../context.js';
import { idempotency } from '../idempotency/index.js';
import {
  createEndpoint,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  retryDelivery,
  sendTestEvent,
  updateEndpoint,
} from './domain.js';
import type { WebhookDeps } from './worker.js';

export function webhookEndpointRoutes(deps: WebhookDeps) {
  return new Hono<AppEnv>()
    .post('/', idempotency(), jsonBody(CreateWebhookEndpointInput), async (c) => {
      const answer = await createEndpoint(deps, c.get('principal'), c.req.valid('json'), c.get('idempotency'));
      return c.json(answer.body, answer.statusCode as 201);
    })
    .get('/', queryOf(ListWebhookEndpointsQuery), async (c) => c.json(await listEndpoints(deps, c.get('principal'), c.req.valid('query'))))
    .patch('/', jsonBody(UpdateWebhookEndpointInput), async (c) => c.json(await updateEndpoint(deps, c.get('principal'), c.req.valid('json'))))
    .get('/:id', async (c) => c.json(await getEndpoint(deps, c.get('principal'), c.req.param('id'))))
    .delete('/:id', async (c) => c.json(await deleteEndpoint(deps, c.get('principal'), c.req.param('id'))))
    .get('/:id/deliveries', queryOf(ListWebhookDeliveriesQuery), async (c) =>
      c.json(await listDeliveries(deps, c.get('principal'), c.req.param('id'), c.req.valid('query'))),
    )
    .post('/:id/test', idempotency(), async (c) => {
      const answer = await sendTestEvent(deps, c.get('principal'), c.req.param('id'), c.get('idempotency'));
      return c.json(answer.body, answer.statusCode as 200);
    });
}

export function webhookDeliveryRoutes(deps: WebhookDeps) {
  return new Hono<AppEnv>()
    .get('/:id', async (c) => c.json(await getDelivery(deps, c.get('principal'), c.req.param('id'))))
    .post('/:id/retry', idempotency(), async (c) => {
      const answer = await retryDelivery(deps, c.get('principal'), c.req.param('id'), c.get('idempotency'));
      return c.json(answer.body, answer.statusCode as 200);
    });
}
