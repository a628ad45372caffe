import { describe, expect, it } from 'vitest';

import document from '../../../docs/openapi.json';

import { apiError, errorOf, type ApiErrorCode } from './api-errors';
import { schemaViolation } from './contract';

const codes = document.components.schemas.ErrorCode.enum as ApiErrorCode[];

describe('the error answers of the tests', () => {
  it.each(codes)('know the status and text the gateway gives %s', (code) => {
    const { status, message } = errorOf(code);
    expect(status).toBeGreaterThanOrEqual(400);
    expect(message).toMatch(/^\S.*\.$/);
  });

  it('take the status and text as the gateway writes them', () => {
    expect(errorOf('ERR_INVALID_ARGUMENT')).toEqual({ status: 400, message: 'Revisa los datos ingresados.' });
    expect(errorOf('ERR_FORBIDDEN')).toEqual({ status: 403, message: 'No tienes permiso para realizar esta acción.' });
  });

  it('build a body the document accepts', async () => {
    const response = apiError('ERR_INVALID_ARGUMENT', { field: 'email', message: 'Ingresa un correo electrónico válido.' });
    expect(response.status).toBe(400);
    expect(schemaViolation('Error', await response.json())).toBeNull();
  });
});
