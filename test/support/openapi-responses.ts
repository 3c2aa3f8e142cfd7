/**
 * The contract between the document and the service, checked on every answer the server tests get:
 * `call` and `callFrom` (./service.ts) hand each response of the service's API (`/v1/…`) to
 * `checkResponse`, which finds its operation in the document that `GET /v1/openapi.json` serves and
 * validates the status and the JSON body against it (ajv, with formats). A test whose answer drifts
 * from the document fails where it made the call, naming the operation, the status and the mismatch:
 * - a path the document does not have, answered with anything but the one-error-shape 404 of an
 *   unknown route, is a route nobody documented;
 * - a status the operation does not list, or a body its schema refuses, is a document that lies.
 * What each process checked is counted by operation and status (`checkedResponses()`).
 */
import assert from 'node:assert/strict';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/server/service/openapi.js';

type Json = Record<string, any>;
interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  parameters: number;
  responses: Json;
}

let compiled: { operations: Operation[]; validators: Map<string, ValidateFunction>; ajv: Ajv; document: Json } | undefined;
const checked = new Map<string, Set<number>>();

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** The document's operations, literal paths before templated ones, and an ajv that knows its components. */
function contract() {
  if (compiled) return compiled;
  const document = openApiDocument() as Json;
  // OpenAPI 3.0 schemas are JSON Schema with `nullable` (ajv's own keyword) and an `example` or two.
  const ajv = new Ajv({ strict: false, allErrors: true, discriminator: true });
  addFormats(ajv);
  ajv.addSchema({ components: document.components }, 'openapi.json');
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(document.paths)) {
    const parameters = (template.match(/\{[^}]+\}/g) ?? []).length;
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`);
    for (const method of METHODS) if (item[method]) operations.push({ method, template, pattern, parameters, responses: item[method].responses });
  }
  operations.sort((a, b) => a.parameters - b.parameters);
  compiled = { operations, validators: new Map(), ajv, document };
  return compiled;
}

/** A response object, following one `$ref` to `components.responses`. */
function resolve(response: Json): Json {
  const target = response?.$ref as string | undefined;
  return target ? contract().document.components.responses[target.split('/').at(-1)!] : response;
}

/** The schema's validator, with the document's `#/components/…` references resolved. */
function validator(key: string, schema: Json): ValidateFunction {
  const { validators, ajv } = contract();
  let validate = validators.get(key);
  if (!validate) {
    const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'));
    validate = ajv.compile(rewritten);
    validators.set(key, validate);
  }
  return validate;
}

/** What one answer of the service was, as the test helpers saw it. */
export interface SeenResponse {
  method: string;
  url: string;
  status: number;
  contentType: string | null;
  body: unknown;
}

/**
 * Fails when the service's answer is not what the document says: an undocumented operation that
 * answered, an unlisted status, or a JSON body its schema refuses. Answers outside `/v1/` (the proxy,
 * the hosted pages, the bundles) and CORS preflights are not the document's.
 */
export function checkResponse({ method, url, status, contentType, body }: SeenResponse): void {
  const { pathname } = new URL(url);
  const verb = method.toLowerCase();
  // The document itself (`GET /v1/openapi.json`) is the contract, not one of its operations.
  if (!pathname.startsWith('/v1/') || pathname === '/v1/openapi.json' || !METHODS.includes(verb)) return;
  const operation = contract().operations.find((candidate) => candidate.method === verb && candidate.pattern.test(pathname));
  const json = /^application\/(?:[\w.+-]+\+)?json\b/.test(contentType ?? '');
  if (!operation) {
    // An unknown route (or method) answers the one error shape's 404 (or 405): nothing to document.
    const refused = (status === 404 || status === 405) && json && validator('ErrorBody', { $ref: '#/components/schemas/ErrorBody' })(body);
    assert.ok(
      refused,
      `${method} ${pathname} answered ${status} but the OpenAPI document has no such operation: document it (src/core/routes.ts, src/core/route-docs.ts)`,
    );
    return;
  }
  const name = `${verb.toUpperCase()} ${operation.template}`;
  const documented = operation.responses[status] ?? operation.responses.default;
  assert.ok(documented, `${name} answered ${status}, which its OpenAPI operation does not list (it lists ${Object.keys(operation.responses).join(', ')})`);
  const schema = resolve(documented)?.content?.['application/json']?.schema;
  if (schema && json) {
    const validate = validator(`${name} ${status}`, schema);
    assert.ok(
      validate(body),
      `${name} answered ${status} with a body its OpenAPI schema refuses:\n${contract().ajv.errorsText(validate.errors, { separator: '\n' })}\n${JSON.stringify(body).slice(0, 2000)}`,
    );
  }
  const statuses = checked.get(name) ?? new Set<number>();
  statuses.add(status);
  checked.set(name, statuses);
}

/** The operations this process checked an answer of (`GET /v1/balance`), each with the statuses seen. */
export function checkedResponses(): Map<string, Set<number>> {
  return checked;
}

/** Every operation of the document, as `checkedResponses()` names them. */
export function documentedOperations(): string[] {
  return contract().operations.map((operation) => `${operation.method.toUpperCase()} ${operation.template}`);
}
