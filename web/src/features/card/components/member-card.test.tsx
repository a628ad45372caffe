import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { keepPersonal, PERSONAL_CACHE_NAME } from '@/lib/personal-cache';
import { apiError } from '@/testing/api-errors';
import { installCacheStorage } from '@/testing/cache-storage';
import { MOCK_NOW } from '@/testing/fixtures/account';
import { anaCard } from '@/testing/fixtures/card';
import { DEMO_PASSWORD, TYPED_OTP } from '@/testing/fixtures/session';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { loginAs, renderApp } from '@/testing/test-utils';

import { CARD_PATH } from '../api/get-card';
import { LARGE_TYPE_STORAGE_KEY } from '../utils/offline';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: MOCK_NOW });
});

afterEach(() => {
  vi.useRealTimers();
  window.localStorage.removeItem(LARGE_TYPE_STORAGE_KEY);
});

async function openCard() {
  loginAs();
  const view = renderApp('/mi-club/tarjeta');
  await screen.findByRole('heading', { level: 2, name: 'Mi Tarjeta' }, { timeout: 4_000 });
  return view;
}

describe('Mi Tarjeta', () => {
  it('shows the name, the grouped card number with its barcode, the balance and when it was read', async () => {
    await openCard();
    expect(await screen.findByTestId('card-number')).toHaveTextContent('7391 0264 5812');
    expect(screen.getByText('Ana González')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Código de barras de tu número de socio 7391 0264 5812' })).toHaveAttribute(
      'data-value',
      anaCard.cardNumber,
    );
    expect(screen.getByTestId('card-balance')).toHaveTextContent('$12.345');
    expect(screen.getByTestId('card-stamp')).toHaveTextContent('Actualizado el 21 de noviembre de 2026 a las 12:00.');
    expect(screen.getByText(/Sube el brillo de tu pantalla/)).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Mi Tarjeta · Mi Club'));
    expect(sent.filter((r) => r.path === '/api/card')).toHaveLength(1);
  });

  it('switches to large type and remembers it for the next visit', async () => {
    const { user } = await openCard();
    const toggle = await screen.findByRole('button', { name: 'Letra grande' });
    expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByTestId('member-card')).toHaveClass('member-card__face--large');
    expect(window.localStorage.getItem(LARGE_TYPE_STORAGE_KEY)).toBe('true');
  });

  it('sends a member without a club account to Mi Cuenta to join', async () => {
    server.use(http.get('/api/card', () => apiError('ERR_NO_CLUB_ACCOUNT')));
    await openCard();
    expect(await screen.findByText(/Aún no tienes tu cuenta Mi Club/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Ir a Mi Cuenta' })).toHaveAttribute('href', '/mi-club');
    expect(screen.queryByTestId('member-card')).not.toBeInTheDocument();
  });

  it('says the card could not be loaded and lets the member try again', async () => {
    let calls = 0;
    server.use(
      http.get('/api/card', () => {
        calls += 1;
        return apiError('ERR_UNAVAILABLE');
      }),
    );
    const { user } = await openCard();
    expect(await screen.findByRole('alert', {}, { timeout: 8_000 })).toHaveTextContent(
      'No pudimos cargar tu tarjeta. Intenta de nuevo más tarde.',
    );
    const before = calls;
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    await waitFor(() => expect(calls).toBeGreaterThan(before));
  });

  it('never shows the next member who logs in on this device the card kept for the one before', async () => {
    // Carla's session ended elsewhere (it expired, or was closed from her phone) with no logout
    // here: her card is still kept. The disk is slow to delete it.
    const storage = installCacheStorage({ latency: { delete: 1_500 } });
    await keepPersonal(CARD_PATH, { ...anaCard, name: 'Carla', lastName: 'Rojas', cardNumber: '111122223333' });
    // The card cannot be read now, so a kept one is all the page could show.
    server.use(http.get('/api/card', () => HttpResponse.error()));
    const { user } = renderApp(`/login?redirect=${encodeURIComponent('/mi-club/tarjeta')}`);
    await user.type(await screen.findByLabelText('RUT', {}, { timeout: 8_000 }), '111111111');
    await user.type(screen.getByLabelText('Contraseña'), DEMO_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Ingresar' }));
    await user.type(await screen.findByLabelText('Código de verificación'), TYPED_OTP);
    await user.click(screen.getByRole('button', { name: 'Validar código' }));
    await screen.findByRole('heading', { level: 2, name: 'Mi Tarjeta' }, { timeout: 8_000 });
    // Once the slow delete is through, whatever the page read of the kept card is on screen.
    await waitFor(() => expect(storage.namesNow()).not.toContain(PERSONAL_CACHE_NAME));
    expect(await screen.findByRole('alert', {}, { timeout: 8_000 })).toHaveTextContent(
      'No pudimos cargar tu tarjeta. Intenta de nuevo más tarde.',
    );
    expect(screen.queryByText(/Carla/)).not.toBeInTheDocument();
    expect(screen.queryByTestId('member-card')).not.toBeInTheDocument();
  });
});
