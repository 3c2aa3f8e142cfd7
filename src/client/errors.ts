/**
 * The client's errors: one class per kind of failure, each carrying the server's `code`, `message`
 * and field `errors`. Catch `PaylinkError` for all of them, or a subclass for one kind.
 * No zod, no DOM, no Node: this file is on the checkout's browser path.
 */
import { readErrorBody, type FieldError } from '../core/errors.js';

/** A field the server named as wrong (`core/errors.ts`). */
export type { FieldError };

export class PaylinkError extends Error {
  /** HTTP status, or 0 when no response arrived. */
  readonly status: number;
  /** The server's machine-readable code, e.g. `validation_failed`, `insufficient_balance`. */
  readonly code: string;
  /** Field errors, when the server named fields. */
  readonly errors: FieldError[];

  constructor(message: string, status: number, code: string, errors: FieldError[] = [], options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.errors = errors;
  }

  /** The message of the error on `path`, if the server named it. */
  fieldError(path: string): string | undefined {
    return this.errors.find((error) => error.path === path)?.message;
  }
}

/** 400 / 413: the request was not valid; `errors` names the fields. */
export class PaylinkValidationError extends PaylinkError {}
/** 401 / 403: missing or wrong API key, or the proxy refused the caller. */
export class PaylinkAuthError extends PaylinkError {}
/** 404: no such link, session, withdrawal or route. */
export class PaylinkNotFoundError extends PaylinkError {}
/** 409: e.g. an `Idempotency-Key` reused with another body. */
export class PaylinkConflictError extends PaylinkError {}
/** 410: the link is closed or the quote has expired. */
export class PaylinkGoneError extends PaylinkError {}
/** 422: a business rule refused the request (e.g. insufficient balance, inactive link). */
export class PaylinkRuleError extends PaylinkError {}
/** 429: slow down; `retryAfter` is in seconds when the server said. */
export class PaylinkRateLimitError extends PaylinkError {
  retryAfter: number | undefined;
}
/** 5xx, or a response that is not what the API promises. */
export class PaylinkServerError extends PaylinkError {}
/** No response at all: offline, DNS, CORS, connection refused, or timed out. */
export class PaylinkNetworkError extends PaylinkError {}

/** Builds the error of a non-2xx response from its status and (already parsed) JSON body. */
export function errorFromResponse(status: number, body: unknown, retryAfterHeader?: string | null): PaylinkError {
  const { code, message, errors } = readErrorBody(status, body);
  const Kind =
    status === 400 || status === 413
      ? PaylinkValidationError
      : status === 401 || status === 403
        ? PaylinkAuthError
        : status === 404
          ? PaylinkNotFoundError
          : status === 409
            ? PaylinkConflictError
            : status === 410
              ? PaylinkGoneError
              : status === 422
                ? PaylinkRuleError
                : status === 429
                  ? PaylinkRateLimitError
                  : status >= 500
                    ? PaylinkServerError
                    : PaylinkError;
  const error = new Kind(message, status, code, errors);
  if (error instanceof PaylinkRateLimitError && retryAfterHeader) {
    const seconds = Number(retryAfterHeader);
    error.retryAfter = Number.isFinite(seconds) ? seconds : undefined;
  }
  return error;
}
