/**
 * The one error of the service. Every failure becomes `{status: "error", statusCode, code, message, errors?}`
 * (built by `errorBody` of `core/errors.ts`, the one builder of that shape) through the app's
 * `onError`, so a route only has to throw.
 */
import type { ZodError } from 'zod';
import { type ErrorCode, errorBody } from '../../core/errors.js';
import type { RuleError } from '../../core/rules/types.js';
import type { FieldError } from '../../core/schemas.js';
import { ruleMessage } from './messages.js';

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toJSON() {
    return errorBody(this.statusCode, this.code, this.message, this.errors);
  }
}

/** A 400 naming each offending field. */
export function validationError(errors: FieldError[], message?: string): ApiError {
  const first = errors[0];
  return new ApiError(
    400,
    'validation_failed',
    message ?? (first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'The request is not valid'),
    errors,
  );
}

/** The 400 of what the rules of `core/rules/` refused, in the API's English (./messages.ts). */
export function ruleError(errors: readonly RuleError[]): ApiError {
  return validationError(errors.map((error) => ({ path: error.path, message: ruleMessage(error) })));
}

/** Turns zod's issues into `errors[]` with dotted paths (`cart.items.0.quantity`). */
export function fromZodError(error: ZodError, prefix = ''): ApiError {
  return validationError(
    error.issues.map((issue) => ({
      path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.'),
      message: issue.message,
    })),
  );
}

export const notFound = (what = 'Resource') => new ApiError(404, 'not_found', `${what} not found`);

/** What a client sees of an error the service did not expect: never a stack trace, never a detail. */
export const internalError = () => new ApiError(500, 'internal_error', 'Something went wrong on our side');
