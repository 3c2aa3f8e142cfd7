/**
 * `paylink/proxy`: the key-holding proxy as a fetch handler, its Node adapter, its upstreams and its
 * rate limiter. The parts behind them (route table, guards, forwarder, redaction) are internal.
 */
export { createPaylinkProxy, type BundleServer, type PaylinkProxyHandler, type PaylinkProxyOptions } from './proxy.js';
export { proxyError, type ProxyIncoming, type ProxyOutgoing, type ProxyRequestInfo } from './messages.js';
export { createFetchUpstream, type Upstream, type UpstreamAnswer, type UpstreamCall, type UpstreamRequest } from './upstream.js';
export { createNodeFetch, createNodeUpstream, type NodeFetchOptions, type NodeUpstreamOptions } from './node-upstream.js';
export { toNodeHandler, type FetchHandler, type NodeHandler } from './node.js';
export { createRateLimiter, type RateLimitDecision, type RateLimiter, type RateLimitOptions } from '../limits/rate-limit.js';
