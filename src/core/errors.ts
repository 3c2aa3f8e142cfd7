/**
 * The one error shape of Paylink: every non-2xx body is
 * `{status: "error", statusCode, code, message, errors?: [{path, message}]}`. `errorBody` is the one
 * place that builds it (the service's `ApiError`, the proxy's refusals) and `readErrorBody` the one
 * place that reads it back (the client's two transports), tolerating anything a broken upstream sends.
 * Isomorphic, no zod and tiny: the checkout bundle carries `readErrorBody`.
 */

/**
 * A field the server named as wrong: `path` is dotted (`cart.items.0.quantity`). The one type of a
 * field error: the service's `errors[]`, the client's `PaylinkError.errors`, the forms' mapping, and
 * the `FieldError` schema of `core/schemas.ts` (checked against it).
 */
export interface FieldError {
  path: string;
  message: string;
}

/** The body of every non-2xx response. */
export interface ErrorBodyShape {
  status: 'error';
  statusCode: number;
  code: string;
  message: string;
  errors?: FieldError[];
}

/** Builds the error body; `errors` is left out when there are none. */
export function errorBody(statusCode: number, code: string, message: string, errors?: readonly FieldError[]): ErrorBodyShape {
  return { status: 'error', statusCode, code, message, ...(errors?.length ? { errors: errors.map(({ path, message }) => ({ path, message })) } : {}) };
}

/**
 * Reads an error body of a `status` response: its code (`http_<status>` when absent), message and
 * field errors, whatever shape `body` has.
 */
export function readErrorBody(status: number, body: unknown): { code: string; message: string; errors: FieldError[] } {
  const data = (typeof body == 'object' && body ? body : {}) as Record<string, unknown>;
  return {
    code: typeof data.code == 'string' ? data.code : `http_${status}`,
    message: typeof data.message == 'string' ? data.message : `Request failed with status ${status}`,
    errors: Array.isArray(data.errors)
      ? data.errors.filter((e) => typeof e == 'object' && e).map((e) => ({ path: String(e.path ?? ''), message: String(e.message ?? '') }))
      : [],
  };
}
