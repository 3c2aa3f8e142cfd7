/** `paylink/proxy`: the key-holding proxy as a fetch handler, its Node adapter and its rate limiter. */
export { createPaylinkProxy, proxyError, type PaylinkProxyHandler, type PaylinkProxyOptions, type ProxyRequestInfo } from './proxy.js';
export { createNodeFetch, toNodeHandler, type FetchHandler, type NodeFetchOptions, type NodeHandler } from './node.js';
export { createRateLimiter, type RateLimitDecision, type RateLimiter, type RateLimitOptions } from './rate-limit.js';
