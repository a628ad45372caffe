import { screen, within } from '@testing-library/react';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { apiError } from '@/testing/api-errors';
import { terms } from '@/testing/fixtures/profile';
import { server } from '@/testing/mocks/server';
import { loginAs, renderApp, storeHasMissions } from '@/testing/test-utils';

describe('/terminos-y-condiciones', () => {
  it('shows the terms in force to a visitor, paragraph by paragraph, with header and footer', async () => {
    renderApp('/terminos-y-condiciones');
    expect(await screen.findByRole('heading', { level: 1, name: 'Términos y condiciones' })).toBeInTheDocument();
    const article = (await screen.findByRole('heading', { level: 2, name: terms.title })).closest('article');
    expect(article).not.toBeNull();
    expect(within(article as HTMLElement).getByTestId('terms-version')).toHaveTextContent('Versión 2026-02');
    expect(article?.querySelectorAll('.terms-document__paragraph')).toHaveLength(3);
    expect(screen.getByRole('button', { name: 'Iniciar sesión' })).toBeInTheDocument();
    expect(screen.getByRole('contentinfo')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Aceptar' })).not.toBeInTheDocument();
  });

  it('shows the same text to a logged-in member', async () => {
    loginAs();
    storeHasMissions(true);
    renderApp('/terminos-y-condiciones');
    expect(await screen.findByRole('heading', { level: 2, name: terms.title })).toBeInTheDocument();
    expect(within(screen.getByRole('banner')).getByRole('link', { name: /Hola, Ana/ })).toBeInTheDocument();
  });

  it('shows a failure with a retry', async () => {
    server.use(http.get('/api/terms-and-conditions', () => apiError('ERR_UNAVAILABLE')));
    const { user } = renderApp('/terminos-y-condiciones');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'No pudimos cargar los términos y condiciones. Intenta de nuevo más tarde.',
    );
    server.resetHandlers();
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByRole('heading', { level: 2, name: terms.title })).toBeInTheDocument();
  });
});
