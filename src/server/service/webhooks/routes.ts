/**
 * The webhook operations of the route table (`/v1/webhook-endpoint*` and `/v1/webhook-delivery*`),
 * behind `X-API-KEY`. Besides the contract's calls: `POST /v1/webhook-endpoint/{id}/test` sends a test
 * event, and `GET /v1/webhook-delivery/{id}` reads one delivery.
 */

/** Before the body's schema (which would drop an unknown `secret` without a word): a `PATCH` naming one is a 400. */
const secretNotSettable: MiddlewareHandler = async (c, next) => {
  refuseSecretInUpdate(await readJsonBody(c));
  await next();
};
import type { MiddlewareHandler } from 'hono';
import { readJsonBody } from '../context.js';
import { idempotency } from '../idempotency/index.js';
import type { RoomOperations } from '../operations.js';
import {
  createEndpoint,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  refuseSecretInUpdate,
  retryDelivery,
  rollSecret,
  sendTestEvent,
  updateEndpoint,
} from './domain.js';
import type { WebhookDeps } from './worker.js';

/** The room's handlers by operation id. */
export function webhookOperations(deps: WebhookDeps) {
  return {
    createWebhookEndpoint: {
      use: [idempotency()],
      handler: async (c) => {
        const answer = await createEndpoint(deps, c.get('principal'), c.req.valid('json'), c.get('idempotency'));
        return c.json(answer.body, answer.statusCode as 201);
      },
    },
    listWebhookEndpoints: async (c) => c.json(await listEndpoints(deps, c.get('principal'), c.req.valid('query'))),
    updateWebhookEndpoint: {
      use: [secretNotSettable],
      handler: async (c) => c.json(await updateEndpoint(deps, c.get('principal'), c.req.valid('json'))),
    },
    rollWebhookSecret: {
      use: [idempotency()],
      handler: async (c) => {
        const answer = await rollSecret(deps, c.get('principal'), c.req.param('id'), c.req.valid('json'), c.get('idempotency'));
        return c.json(answer.body, answer.statusCode as 200);
      },
    },
    getWebhookEndpoint: async (c) => c.json(await getEndpoint(deps, c.get('principal'), c.req.param('id'))),
    deleteWebhookEndpoint: async (c) => c.json(await deleteEndpoint(deps, c.get('principal'), c.req.param('id'))),
    listWebhookDeliveries: async (c) => c.json(await listDeliveries(deps, c.get('principal'), c.req.param('id'), c.req.valid('query'))),
    sendWebhookTestEvent: {
      use: [idempotency()],
      handler: async (c) => {
        const answer = await sendTestEvent(deps, c.get('principal'), c.req.param('id'), c.get('idempotency'));
        return c.json(answer.body, answer.statusCode as 200);
      },
    },
    getWebhookDelivery: async (c) => c.json(await getDelivery(deps, c.get('principal'), c.req.param('id'))),
    retryWebhookDelivery: {
      use: [idempotency()],
      handler: async (c) => {
        const answer = await retryDelivery(deps, c.get('principal'), c.req.param('id'), c.get('idempotency'));
        return c.json(answer.body, answer.statusCode as 200);
      },
    },
  } satisfies RoomOperations;
}
