/**
 * The one HTTP client for the gateway's `/api`. It sends the session cookie (same origin), adds
 * the CSRF header on every state-changing request, parses the gateway's error body
 * `{code, message, action?, field?}` and turns any 401 from a URL other than `/api/login` into a
 * logout (spec section 7) through the handler the app registers.
 */

import type { Schemas } from './api-types';

export type ErrorAction = Schemas['ErrorAction'];

type WireError = Schemas['Error'];

/**
 * The gateway's error body (`Error` in its OpenAPI document) as the UI reads it: `code` is any
 * string, because a newer gateway may answer a code this build does not know (its Spanish
 * `message` is shown as is), and an absent `action` or `field` is `undefined`.
 */
export type ApiErrorBody = {
  code: WireError['code'] | (string & Record<never, never>);
  message: WireError['message'];
  action?: NonNullable<WireError['action']>;
  field?: NonNullable<WireError['field']>;
};

/** The gateway answered with a non-2xx status. `body` is null when it was not the gateway's JSON. */
export class ApiError extends Error {
  readonly status: number;
  readonly url: string;
  readonly body: ApiErrorBody | null;

  constructor(status: number, url: string, body: ApiErrorBody | null) {
    super(body?.message ?? `HTTP ${status} from ${url}`);
    this.name = 'ApiError';
    this.status = status;
    this.url = url;
    this.body = body;
  }

  get code(): string | undefined {
    return this.body?.code;
  }
}

/** No answer at all: offline, DNS, connection reset, aborted. */
export class NetworkError extends Error {
  readonly url: string;

  constructor(url: string, cause: unknown) {
    super(`No response from ${url}`, { cause });
    this.name = 'NetworkError';
    this.url = url;
  }
}

export const CSRF_HEADER = 'x-miclub-csrf';

/** URLs whose 401 is an expected answer rather than a lost session. */
const UNAUTHORIZED_EXEMPT = new Set(['/api/login', '/api/logout']);

type UnauthorizedHandler = (error: ApiError) => void;
let unauthorizedHandler: UnauthorizedHandler | null = null;

/** The app registers what "logout" means; returns a function that unregisters it. */
export function setUnauthorizedHandler(handler: UnauthorizedHandler | null): () => void {
  unauthorizedHandler = handler;
  return () => {
    if (unauthorizedHandler === handler) unauthorizedHandler = null;
  };
}

type RequestOptions = {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  cache?: RequestCache;
};

function asErrorBody(value: unknown): ApiErrorBody | null {
  if (typeof value !== 'object' || value === null) return null;
  const candidate = value as Partial<WireError> & Record<string, unknown>;
  if (typeof candidate.code !== 'string' || typeof candidate.message !== 'string') return null;
  return {
    code: candidate.code,
    message: candidate.message,
    action: candidate.action ?? undefined,
    field: candidate.field ?? undefined,
  };
}

function pathOf(url: string): string {
  return new URL(url, 'http://relative.invalid').pathname;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function request<T>(method: string, url: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (method !== 'GET' && method !== 'HEAD') headers[CSRF_HEADER] = '1';
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }

  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body,
      credentials: 'same-origin',
      signal: options.signal,
      cache: options.cache,
    });
  } catch (cause) {
    throw new NetworkError(url, cause);
  }

  if (!response.ok) {
    const parsed = await readJson(response);
    const error = new ApiError(response.status, url, asErrorBody(parsed));
    if (response.status === 401 && !UNAUTHORIZED_EXEMPT.has(pathOf(url))) {
      unauthorizedHandler?.(error);
    }
    throw error;
  }

  if (response.status === 204) return undefined as T;
  return (await readJson(response)) as T;
}

export const api = {
  get: <T>(url: string, options?: Omit<RequestOptions, 'body'>) => request<T>('GET', url, options),
  post: <T>(url: string, body?: unknown, options?: Omit<RequestOptions, 'body'>) =>
    request<T>('POST', url, { ...options, body }),
  put: <T>(url: string, body?: unknown, options?: Omit<RequestOptions, 'body'>) =>
    request<T>('PUT', url, { ...options, body }),
  delete: <T>(url: string, options?: Omit<RequestOptions, 'body'>) => request<T>('DELETE', url, options),
};
