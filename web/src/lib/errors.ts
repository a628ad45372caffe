/** Turning failures into the Spanish texts a member reads. */
import { ApiError, NetworkError, type ErrorAction } from './api-client';

export type DisplayError = { message: string; action?: ErrorAction };

/** First letter upper-case, the rest as the server wrote it (spec section 8). */
export function capitalizeFirst(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  return trimmed.charAt(0).toLocaleUpperCase('es-CL') + trimmed.slice(1);
}

/**
 * The gateway's message for an error when there is one, or `fallback` when there was no answer,
 * the answer was a 500, or the body was not the gateway's error JSON.
 */
export function toDisplayError(error: unknown, fallback: string): DisplayError {
  if (error instanceof ApiError && error.status !== 500 && error.body && error.body.message.trim()) {
    const action = error.body.action;
    return {
      message: capitalizeFirst(error.body.message),
      ...(action && action.url && action.urlName ? { action } : {}),
    };
  }
  return { message: fallback };
}

export function isApiErrorWithStatus(error: unknown, status: number): boolean {
  return error instanceof ApiError && error.status === status;
}

/** The identifier pushed with analytics failure events: the gateway's code, the status, or no answer. */
export function errorCodeOf(error: unknown): string {
  if (error instanceof ApiError) return error.code ?? `HTTP_${error.status}`;
  if (error instanceof NetworkError) return 'SIN_RESPUESTA';
  return 'ERROR_CLIENTE';
}

/** A failure the same request may be sent again for: no answer, a 5xx, or a body that is not ours. */
export function isServerFailure(error: unknown): boolean {
  return !(error instanceof ApiError) || error.status >= 500 || error.body === null;
}
