import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { DEMO_PASSWORD, TYPED_OTP } from '@/testing/fixtures/session';
import { currentLocation, dataLayerEvents, renderApp } from '@/testing/test-utils';

async function openModal() {
  const view = renderApp('/promociones');
  const opener = await screen.findByRole('button', { name: 'Iniciar sesión' });
  await view.user.click(opener);
  const dialog = await screen.findByRole('dialog', { name: 'Inicia sesión' });
  return { ...view, opener, dialog };
}

describe('the login modal', () => {
  it('opens from the header as a labelled modal dialog with focus on the first field', async () => {
    const { dialog } = await openModal();
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    await waitFor(() => expect(screen.getByLabelText('RUT')).toHaveFocus());
  });

  it('keeps focus inside while tabbing forwards and backwards', async () => {
    const { dialog, user } = await openModal();
    await waitFor(() => expect(screen.getByLabelText('RUT')).toHaveFocus());
    for (let i = 0; i < 15; i += 1) {
      await user.tab();
      expect(dialog).toContainElement(document.activeElement as HTMLElement);
    }
    for (let i = 0; i < 15; i += 1) {
      await user.tab({ shift: true });
      expect(dialog).toContainElement(document.activeElement as HTMLElement);
    }
  });

  it('makes the page behind it inert', async () => {
    await openModal();
    expect(document.getElementById('root')).toHaveAttribute('inert');
    expect(screen.getByRole('dialog').closest('[inert]')).toBeNull();
  });

  it('closes with Escape and returns focus to the button that opened it', async () => {
    const { opener, user } = await openModal();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(opener).toHaveFocus();
  });

  it('closes with its close button and returns focus', async () => {
    const { opener, user } = await openModal();
    await user.click(screen.getByRole('button', { name: 'Cerrar' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(opener).toHaveFocus();
  });

  it('logs in, closes and goes to the redirect URL', async () => {
    const { user } = await openModal();
    await user.type(screen.getByLabelText('RUT'), '111111111');
    await user.type(screen.getByLabelText('Contraseña'), DEMO_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Ingresar' }));
    await user.type(await screen.findByLabelText('Código de verificación'), TYPED_OTP);
    await user.click(screen.getByRole('button', { name: 'Validar código' }));
    expect(await screen.findByRole('heading', { name: 'Hola, Ana' })).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(currentLocation()).toBe('/mi-club');
    expect(dataLayerEvents('login_exitoso')).toEqual([
      { event: 'login_exitoso', metodo: 'modal', usuario_migrando: false },
    ]);
  });
});
