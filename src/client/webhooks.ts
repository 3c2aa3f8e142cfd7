/**
 * `client.webhookEndpoints` and `client.webhookDeliveries`: where the service posts its events, and
 * the log of what it posted (`/webhook-endpoint`, `/webhook-delivery`). Keyed, like every
 * admin resource. Verify what arrives with `verifyWebhook` of `paylink/webhooks`.
 *
 * The endpoint's secret is in the answer of `create` (and of `rollSecret`, for a new one) and nowhere else: store it then.
 */
import {
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointDeleted,
  WebhookEndpointList,
  type CreateWebhookEndpointInput,
  type RollWebhookSecretInput,
  type UpdateWebhookEndpointInput,
  type WebhookDeliveryStatus,
} from '../core/schemas.js';
import type { RequestOptions, Transport } from './http.js';
import { idOf, pathOf } from './links.js';

/** An endpoint or delivery id, or an object carrying it. */
export type WebhookRef = string | { id: string };

/** Paging of `webhookEndpoints.list`. */
export interface ListWebhookEndpointsParams {
  page?: number;
  limit?: number;
}

/** Filters and paging of `webhookEndpoints.deliveries`. */
export interface ListWebhookDeliveriesParams {
  page?: number;
  limit?: number;
  status?: WebhookDeliveryStatus;
}

export interface WebhookEndpointsResource {
  /** Adds an endpoint (201). The answer carries its `secret` (`whsec_…`), which no other call returns. */
  create(params: CreateWebhookEndpointInput, options?: RequestOptions): Promise<WebhookEndpointCreated>;
  /** One page of the caller's endpoints, newest first. */
  list(params?: ListWebhookEndpointsParams, options?: RequestOptions): Promise<WebhookEndpointList>;
  get(params: WebhookRef, options?: RequestOptions): Promise<WebhookEndpoint>;
  /** Changes the endpoint named by `params.id`: its `url`, `events`, `description`, or `isActive`. */
  update(params: UpdateWebhookEndpointInput, options?: RequestOptions): Promise<WebhookEndpoint>;
  /** Removes the endpoint, its pending deliveries and its log. */
  delete(params: WebhookRef, options?: RequestOptions): Promise<WebhookEndpointDeleted>;
  /** The endpoint's delivery log, newest first. */
  deliveries(params: WebhookRef, query?: ListWebhookDeliveriesParams, options?: RequestOptions): Promise<WebhookDeliveryList>;
  /**
   * Sends a `webhook.test` event to the endpoint now (`POST /webhook-endpoint/{id}/test`) and resolves
   * with its delivery after that first attempt: `status` and `attempts[0]` say how the endpoint answered.
   */
  sendTestEvent(params: WebhookRef, options?: RequestOptions): Promise<WebhookDelivery>;
  /**
   * Gives the endpoint a new signing secret (`POST /webhook-endpoint/{id}/roll-secret`); the answer
   * carries it, and no other call returns it. The current secret keeps signing every delivery beside
   * it for `expiresInHours` (default 24; 0 stops it now): give your receiver the new secret meanwhile
   * (`verifyWebhook` takes both while you switch). Pass an `idempotencyKey` to retry safely.
   */
  rollSecret(params: WebhookRef, body?: RollWebhookSecretInput, options?: RequestOptions): Promise<WebhookEndpointCreated>;
}

export interface WebhookDeliveriesResource {
  /** One delivery and its attempts, by id (`GET /webhook-delivery/{id}`): follow a retry or a test without paging the endpoint's log. */
  get(params: WebhookRef, options?: RequestOptions): Promise<WebhookDelivery>;
  /**
   * Sends the delivery's event again now (same event id, new signature), whatever its status, and
   * resolves with the delivery after that attempt.
   */
  retry(params: WebhookRef, options?: RequestOptions): Promise<WebhookDelivery>;
}

export function createWebhookEndpointsResource(transport: Transport): WebhookEndpointsResource {
  return {
    create: (params, options = {}) =>
      transport.request('POST', '/webhook-endpoint', (data) => WebhookEndpointCreated.parse(data), { ...options, body: params }),
    list: (params = {}, options = {}) =>
      transport.request('GET', '/webhook-endpoint', (data) => WebhookEndpointList.parse(data), { ...options, query: { ...params } }),
    get: (params, options = {}) =>
      transport.request('GET', pathOf('/webhook-endpoint', params, 'webhookEndpoints.get'), (data) => WebhookEndpoint.parse(data), options),
    update: (params, options = {}) => {
      idOf(params, 'webhookEndpoints.update');
      return transport.request('PATCH', '/webhook-endpoint', (data) => WebhookEndpoint.parse(data), { ...options, body: params });
    },
    delete: (params, options = {}) =>
      transport.request('DELETE', pathOf('/webhook-endpoint', params, 'webhookEndpoints.delete'), (data) => WebhookEndpointDeleted.parse(data), options),
    deliveries: (params, query = {}, options = {}) =>
      transport.request('GET', `${pathOf('/webhook-endpoint', params, 'webhookEndpoints.deliveries')}/deliveries`, (data) => WebhookDeliveryList.parse(data), {
        ...options,
        query: { ...query },
      }),
    sendTestEvent: (params, options = {}) =>
      transport.request(
        'POST',
        `${pathOf('/webhook-endpoint', params, 'webhookEndpoints.sendTestEvent')}/test`,
        (data) => WebhookDelivery.parse(data),
        options,
      ),
    rollSecret: (params, body = {}, options = {}) =>
      transport.request(
        'POST',
        `${pathOf('/webhook-endpoint', params, 'webhookEndpoints.rollSecret')}/roll-secret`,
        (data) => WebhookEndpointCreated.parse(data),
        { ...options, body },
      ),
  };
}

export function createWebhookDeliveriesResource(transport: Transport): WebhookDeliveriesResource {
  return {
    get: (params, options = {}) =>
      transport.request('GET', pathOf('/webhook-delivery', params, 'webhookDeliveries.get'), (data) => WebhookDelivery.parse(data), options),
    retry: (params, options = {}) =>
      transport.request('POST', `${pathOf('/webhook-delivery', params, 'webhookDeliveries.retry')}/retry`, (data) => WebhookDelivery.parse(data), options),
  };
}
