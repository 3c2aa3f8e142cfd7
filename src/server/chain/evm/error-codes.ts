/**
 * The EVM family's error codes: the one list, each code with whether it is retryable. Kept apart from
 * ./errors.ts, which reads viem's errors, so that the metrics (../../metrics/runtime.ts) count node
 * errors by these codes without loading the chain library.
 */

/**
 * What can go wrong, and whether the same operation may succeed later without being changed (node
 * back up, rate limit lifted, hot wallet topped up): `EvmChainError.retryable`.
 */
export const EVM_ERROR_RETRYABLE = {
  /** No connection to the node (refused, reset, DNS, socket closed). */
  unreachable: true,
  /** The node did not answer within the timeout. */
  timeout: true,
  /** The node (or its provider) refuses for now: HTTP 429 or a JSON-RPC limit error. */
  rate_limited: true,
  /** The node answered with a server error (HTTP 5xx, JSON-RPC internal error) or an inconsistent view. */
  node_error: true,
  /** No node has reached the block asked about yet (they lag behind the head seen before). */
  lagging: true,
  /** The node answered something that is not a usable JSON-RPC answer. */
  bad_response: true,
  /** The node does not serve this method, or refused the request as malformed. */
  unsupported: false,
  /** The node serves another chain than the configured `PAYLINK_EVM_CHAIN_ID`. */
  chain_mismatch: false,
  /** A configured token is not a usable ERC-20 contract on this chain. */
  misconfigured: false,
  /** The transaction would revert (found while estimating its gas). */
  reverted: false,
  /** The sender cannot pay for gas (or value); may work once it is topped up. */
  insufficient_funds: true,
  /** The node refused the transaction's fee as too low for now. */
  fee_too_low: true,
  /** The node refused a transaction whose earlier nonces it has not seen (send those first). */
  nonce_too_high: true,
  /** The node refused the transaction for good (bad signature, wrong chain id, gas limit, …). */
  rejected: false,
} as const satisfies Record<string, boolean>;

/** What went wrong, as a stable code. */
export type EvmErrorCode = keyof typeof EVM_ERROR_RETRYABLE;

/** Every code, in the order above. */
export const EVM_ERROR_CODES = Object.keys(EVM_ERROR_RETRYABLE) as EvmErrorCode[];
