/**
 * Holds the component tests' mock backend to the gateway's contract: every request the app sends
 * and every answer an MSW handler gives is checked against the OpenAPI document the gateway
 * serves (`docs/openapi.json`). An undocumented route or status, a missing required field or a
 * field the document does not know fails the test that caused it, so the mocks cannot drift
 * from the server the way a hand-kept second backend does.
 *
 * A test that means to answer what the gateway never does (a proxy's HTML error page, a
 * corrupted body) says so with {@link offContract}; only those answers go unchecked.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';

import document from '../../../docs/openapi.json';

type Json = unknown;
type Operation = {
  requestBody?: { content?: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, unknown> }>;
};

/** The document with every object schema closed: a field it does not list is refused. */
function closed(value: Json): Json {
  if (Array.isArray(value)) return value.map(closed);
  if (typeof value !== 'object' || value === null) return value;
  const object = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, closed(inner)]));
  if ('properties' in object && !('additionalProperties' in object)) object.additionalProperties = false;
  return object;
}

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: 'api', ...(closed(document) as object) });

const validators = new Map<string, ValidateFunction>();

/** The validator of the schema at `pointer` inside the document (a JSON pointer). */
function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `api#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

/** What is wrong with `value` as an instance of the document's schema `name`; null when nothing. */
export function schemaViolation(name: string, value: unknown): string | null {
  const validate = validatorAt(`/components/schemas/${name}`);
  return validate(value) ? null : `${name}: ${describe(validate.errors)}`;
}

const escape = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

const paths = document.paths as Record<string, Record<string, Operation>>;

/** The documented path template `pathname` matches, e.g. `/api/login`. */
function templateOf(pathname: string): string | undefined {
  const parts = pathname.split('/');
  return Object.keys(paths).find((template) => {
    const expected = template.split('/');
    return (
      expected.length === parts.length &&
      expected.every((segment, index) => segment === parts[index] || /^\{.+\}$/.test(segment))
    );
  });
}

function describe(errors: ValidateFunction['errors']): string {
  return (errors ?? [])
    .map((error) => `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`)
    .join('; ');
}

async function jsonOf(message: Request | Response): Promise<{ json: Json; text: string }> {
  const text = await message.clone().text();
  if (!text) return { json: undefined, text };
  try {
    return { json: JSON.parse(text) as Json, text };
  } catch {
    return { json: undefined, text };
  }
}

/** What is wrong with the request the app sent, against its operation; null when nothing. */
export async function requestViolation(request: Request): Promise<string | null> {
  const url = new URL(request.url);
  if (!url.pathname.startsWith('/api/')) return null;
  const method = request.method.toLowerCase();
  const template = templateOf(url.pathname);
  const operation = template ? paths[template]?.[method] : undefined;
  if (!template || !operation) return `${request.method} ${url.pathname} is not in the document`;
  const { json, text } = await jsonOf(request);
  if (!operation.requestBody) {
    return text ? `${request.method} ${template} takes no body but was sent ${text}` : null;
  }
  const validate = validatorAt(
    `/paths/${escape(template)}/${method}/requestBody/content/${escape('application/json')}/schema`,
  );
  return validate(json) ? null : `${request.method} ${template} request: ${describe(validate.errors)}`;
}

const OFF_CONTRACT = 'x-test-off-contract';

/**
 * Marks a mocked answer as one the gateway never gives, on purpose (`why` says what it stands
 * for: "a proxy's error page", "a corrupted body"), so the contract check lets it through.
 */
export function offContract(response: Response, why: string): Response {
  response.headers.set(OFF_CONTRACT, why);
  return response;
}

/** What is wrong with the answer a handler gave, against its operation; null when nothing. */
export async function responseViolation(request: Request, response: Response): Promise<string | null> {
  const url = new URL(request.url);
  if (!url.pathname.startsWith('/api/') || response.headers.has(OFF_CONTRACT)) return null;
  const method = request.method.toLowerCase();
  const template = templateOf(url.pathname);
  const operation = template ? paths[template]?.[method] : undefined;
  if (!template || !operation) return null; // reported for the request
  const status = String(response.status);
  const documented = operation.responses[status];
  if (!documented) return `${request.method} ${template} answered ${status}, which the document does not list`;
  const { json, text } = await jsonOf(response);
  if (!documented.content?.['application/json']) {
    return text ? `${request.method} ${template} ${status} has no documented body but answered ${text}` : null;
  }
  const validate = validatorAt(
    `/paths/${escape(template)}/${method}/responses/${status}/content/${escape('application/json')}/schema`,
  );
  return validate(json) ? null : `${request.method} ${template} ${status}: ${describe(validate.errors)}`;
}
