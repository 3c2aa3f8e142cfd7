/**
 * The one error of the service. Every failure becomes `{status: "error", statusCode, code, message, errors?}`
 * through the app's `onError`, so a route only has to throw.
 */
import type { ZodError } from 'zod';
import type { FieldError } from '../../core/schemas.js';

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toJSON() {
    return {
      status: 'error' as const,
      statusCode: this.statusCode,
      code: this.code,
      message: this.message,
      ...(this.errors?.length ? { errors: this.errors } : {}),
    };
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
