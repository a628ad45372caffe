import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { carlaProfile } from '@/testing/fixtures/session';
import { accountMenuLink, currentUrl, dataLayerEvents, loginAs, renderApp, storeHasMissions } from '@/testing/test-utils';

function announcer() {
  return screen.getByTestId('route-announcer');
}

describe('the sections of /mi-club on client navigation', () => {
  it('sets each page title, and moves focus to the section heading instead of announcing it', { timeout: 15_000 }, async () => {
    loginAs();
    storeHasMissions(true);
    const { user } = renderApp('/mi-club/movimientos');
    // The first lazy chunks of a file may take a while on a busy machine.
    await screen.findByRole('heading', { level: 2, name: 'Mis Movimientos' }, { timeout: 5_000 });
    await waitFor(() => expect(document.title).toBe('Mis Movimientos · Mi Club'));

    await user.click(accountMenuLink('Mis Datos'));
    const heading = await screen.findByRole('heading', { level: 2, name: 'Mis Datos' }, { timeout: 4_000 });
    await waitFor(() => expect(document.title).toBe('Mis Datos · Mi Club'));
    // The section's heading, not the greeting: the reader hears where the member is now, once.
    await waitFor(() => expect(heading).toHaveFocus());
    expect(announcer()).toHaveTextContent('');

    await user.click(accountMenuLink('Mi Cuenta'));
    await screen.findByTestId('balance-amount');
    await waitFor(() => expect(document.title).toBe('Mi Cuenta · Mi Club'));
    await waitFor(() => expect(screen.getByRole('heading', { level: 1, name: 'Hola, Ana' })).toHaveFocus());
  });

  it('announces the title when focus goes elsewhere on purpose (the notice after a terms decision)', async () => {
    loginAs(carlaProfile);
    const { user } = renderApp('/mi-club/terminos');
    await screen.findByRole('heading', { level: 3, name: 'Términos y condiciones del programa Mi Club' });
    await user.click(screen.getByRole('button', { name: 'Aceptar' }));
    const notice = await screen.findByText('Aceptaste los términos y condiciones.');
    await waitFor(() => expect(notice.closest('[tabindex="-1"]')).toHaveFocus());
    expect(currentUrl()).toBe('/mi-club');
    await waitFor(() => expect(announcer()).toHaveTextContent('Mi Cuenta · Mi Club'));
  });

  it('sends a visitor on a section to /login with the way back, query string included', async () => {
    renderApp('/mi-club/movimientos?mes=2026-10&pagina=2');
    await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
    expect(currentUrl()).toBe(`/login?redirect=${encodeURIComponent('/mi-club/movimientos?mes=2026-10&pagina=2')}`);
    await waitFor(() => expect(document.title).toBe('Inicia sesión · Mi Club'));
  });

  it('pushes a page type per section', async () => {
    loginAs();
    const { user } = renderApp('/mi-club');
    await screen.findByTestId('balance-amount', {}, { timeout: 5_000 });
    await user.click(accountMenuLink('Mis Movimientos'));
    await screen.findByRole('heading', { level: 2, name: 'Mis Movimientos' });
    await user.click(accountMenuLink('Mis Datos'));
    await screen.findByRole('heading', { level: 2, name: 'Mis Datos' });
    expect(dataLayerEvents('tipo_pagina')).toEqual([
      { event: 'tipo_pagina', tipo_pagina: 'mi_club', ruta: '/mi-club' },
      { event: 'tipo_pagina', tipo_pagina: 'mi_club_mis_movimientos', ruta: '/mi-club/movimientos' },
      { event: 'tipo_pagina', tipo_pagina: 'mi_club_mis_datos', ruta: '/mi-club/mis-datos' },
    ]);
  });
});
