/**
 * The gateway's contract as TypeScript types, generated from `docs/openapi.json` (the document
 * the gateway serves at `/api/openapi.json`) into `api-schema.gen.ts` by `npm run api:generate`.
 * Every request and response type of an `/api` call comes from here; none is written by hand.
 */
import type { components, paths } from './api-schema.gen';

export type Schemas = components['schemas'];

type Method = 'get' | 'put' | 'post' | 'delete';

/** The operation `method path`, when the document has it. */
type Operation<P extends keyof paths, M extends Method> = paths[P][M] extends infer O
  ? O extends { responses: unknown }
    ? O
    : never
  : never;

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : void;

/** What a successful (2xx) answer of `method path` carries; `void` when it has no body. */
export type ResponseOf<P extends keyof paths, M extends Method> = {
  [S in keyof Operation<P, M>['responses']]: S extends 200 | 201 | 202 | 204
    ? JsonOf<Operation<P, M>['responses'][S]>
    : never;
}[keyof Operation<P, M>['responses']];

/** The JSON body `method path` takes. */
export type BodyOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody: { content: { 'application/json': infer B } } }
    ? B
    : Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } }
      ? B
      : never;

/** The query parameters of `method path`. */
export type QueryOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
