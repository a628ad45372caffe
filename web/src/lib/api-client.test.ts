import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { apiError } from '@/testing/api-errors';
import { offContract } from '@/testing/contract';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';

import { api, ApiError, NetworkError, setUnauthorizedHandler } from './api-client';

describe('the API client', () => {
  let unregister: (() => void) | null = null;
  afterEach(() => unregister?.());

  it('sends the CSRF header and JSON on every POST', async () => {
    await api.post('/api/resend-otp').catch(() => undefined);
    await api.post('/api/validate-otp', { otp: '000000' }).catch(() => undefined);
    for (const request of sent) {
      expect(request.headers['x-miclub-csrf']).toBe('1');
    }
    expect(sent.at(-1)?.headers['content-type']).toBe('application/json');
    expect(sent.at(-1)?.body).toEqual({ otp: '000000' });
  });

  it('sends the CSRF header and JSON on PUT', async () => {
    const update = {
      email: 'ana@example.cl',
      name: 'Ana',
      last_name: 'González',
      mother_surname: '',
      phone_number: '',
      birth_date: '',
      gender_id: 0,
    };
    await api.put('/api/profile', update).catch(() => undefined);
    const request = sent.find((r) => r.method === 'PUT');
    expect(request?.headers['x-miclub-csrf']).toBe('1');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.body).toEqual(update);
  });

  it('sends requests with same-origin credentials', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    await api.get('/api/context');
    await api.post('/api/logout');
    for (const call of fetchSpy.mock.calls) {
      expect(call[1]?.credentials).toBe('same-origin');
    }
  });

  it('does not send the CSRF header on GET', async () => {
    await api.get('/api/profile').catch(() => undefined);
    expect(sent.at(-1)?.headers['x-miclub-csrf']).toBeUndefined();
  });

  it('turns a 401 from any URL other than /api/login into a logout', async () => {
    const onUnauthorized = vi.fn();
    unregister = setUnauthorizedHandler(onUnauthorized);
    server.use(http.get('/api/balance', () => apiError('ERR_UNAUTHENTICATED')));
    await expect(api.get('/api/balance')).rejects.toBeInstanceOf(ApiError);
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
    server.use(
      http.post('/api/profile/email/resend', () =>
        HttpResponse.json({ code: 'ERR_UNAUTHENTICATED', message: 'x' }, { status: 401 }),
      ),
    );
    await expect(api.post('/api/profile/email/resend')).rejects.toBeInstanceOf(ApiError);
    expect(onUnauthorized).toHaveBeenCalledTimes(2);
  });

  it('does not log out on a 401 from /api/login', async () => {
    server.use(http.post('/api/login', () => apiError('ERR_INVALID_CREDENTIALS')));
    const onUnauthorized = vi.fn();
    unregister = setUnauthorizedHandler(onUnauthorized);
    const error = await api
      .post('/api/login', { user: '11.111.111-1', password: 'wrong' }, { headers: { 'recaptcha-token': 't' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('does not log out on other statuses', async () => {
    const onUnauthorized = vi.fn();
    unregister = setUnauthorizedHandler(onUnauthorized);
    server.use(http.get('/api/balance', () => HttpResponse.json({ code: 'ERR_NO_CLUB_ACCOUNT', message: 'x' }, { status: 406 })));
    await expect(api.get('/api/balance')).rejects.toBeInstanceOf(ApiError);
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('parses the gateway error body with its action and field', async () => {
    server.use(
      http.post('/api/login', () =>
        HttpResponse.json(
          { code: 'ERR_INVALID_RUT', message: 'El RUT ingresado no es válido.', field: 'user', action: { url: '/a', urlName: 'A' } },
          { status: 400 },
        ),
      ),
    );
    const error = (await api
      .post('/api/login', { user: 'x', password: 'y' })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('ERR_INVALID_RUT');
    expect(error.body).toEqual({
      code: 'ERR_INVALID_RUT',
      message: 'El RUT ingresado no es válido.',
      field: 'user',
      action: { url: '/a', urlName: 'A' },
    });
  });

  it('keeps no body when the answer is not the gateway error JSON', async () => {
    server.use(
      http.get('/api/balance', () =>
        offContract(new HttpResponse('<html>Bad gateway</html>', { status: 502 }), "a proxy's error page"),
      ),
    );
    const error = (await api.get('/api/balance').catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(502);
    expect(error.body).toBeNull();
  });

  it('reports a missing response as a network error', async () => {
    server.use(http.get('/api/context', () => HttpResponse.error()));
    await expect(api.get('/api/context')).rejects.toBeInstanceOf(NetworkError);
  });

  it('answers undefined for 204', async () => {
    await expect(api.post('/api/logout')).resolves.toBeUndefined();
  });
});
