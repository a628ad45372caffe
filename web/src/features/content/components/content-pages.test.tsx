import { fireEvent, screen, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { apiError } from '@/testing/api-errors';
import { alliances, banners, loginFaqs, promotions } from '@/testing/fixtures/content';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { currentLocation, dataLayerEvents, loginAs, renderApp } from '@/testing/test-utils';

import { ALLIANCES_EMPTY, ALLIANCES_FAILED } from './alliances-page';
import { BANNERS_FAILED } from './banner-strip';
import { FAQS_EMPTY, FAQS_FAILED } from './faq-page';
import { PROMOTIONS_EMPTY, PROMOTIONS_FAILED } from './promotions-page';

function hangs(path: string) {
  server.use(
    http.get(path, async () => {
      await delay('infinite');
      return HttpResponse.json({});
    }),
  );
}

function card(title: string) {
  return screen.getByRole('heading', { level: 2, name: title }).closest('li') as HTMLElement;
}

describe('/promociones', () => {
  it('shows each promotion with image, badge, title, description and its link', async () => {
    renderApp('/promociones');
    await screen.findByRole('heading', { level: 2, name: 'Martes de frutas y verduras' });
    const tuesday = card('Martes de frutas y verduras');
    expect(within(tuesday).getByText('Solo martes')).toBeInTheDocument();
    expect(within(tuesday).getByText('Acumula 3% en frutas y verduras todos los martes.')).toBeInTheDocument();
    expect(tuesday.querySelector('img')).toHaveAttribute('src', '/images/promociones/martes-frutas.svg');
    expect(within(tuesday).getByRole('link', { name: /Ver promoción/ })).toHaveAttribute(
      'href',
      'https://www.lider.cl/promociones/martes',
    );
    expect(sent.filter((r) => r.path === '/api/promotions')).toHaveLength(1);
  });

  it('pushes promocion_seleccion when a promotion is opened and promocion_click when its link is followed', async () => {
    const { user } = renderApp('/promociones');
    await screen.findByRole('heading', { level: 2, name: 'Lunes con Tarjeta Lider BCI' });
    const monday = card('Lunes con Tarjeta Lider BCI');
    const toggle = within(monday).getByRole('button', { name: /Ver detalle/ });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(within(monday).getByText(/^Válida del 1 de noviembre de \d{4} al 31 de diciembre de \d{4}/)).toBeVisible();
    expect(dataLayerEvents('promocion_seleccion')).toEqual([
      { event: 'promocion_seleccion', promocion_id: 'lunes-bci', promocion_titulo: 'Lunes con Tarjeta Lider BCI' },
    ]);
    // Closing it again is not a selection.
    await user.click(toggle);
    expect(dataLayerEvents('promocion_seleccion')).toHaveLength(1);
    await user.click(within(monday).getByRole('link', { name: /Ver promoción/ }));
    expect(dataLayerEvents('promocion_click')).toEqual([
      { event: 'promocion_click', promocion_id: 'lunes-bci', promocion_titulo: 'Lunes con Tarjeta Lider BCI' },
    ]);
    // A link of the portal itself navigates inside the app.
    expect(await screen.findByRole('heading', { level: 1, name: 'Alianzas' })).toBeInTheDocument();
    expect(currentLocation()).toBe('/alianzas');
  });

  it('offers the simulator below the promotions, without a session', async () => {
    renderApp('/promociones');
    expect(await screen.findByRole('heading', { level: 2, name: 'Simulador de acumulación' })).toBeInTheDocument();
  });

  it('fetches the first image at once and with priority, the others lazily', async () => {
    renderApp('/promociones');
    // The route's chunk is imported lazily; a busy machine can take longer than findBy's second.
    await screen.findByRole('heading', { level: 2, name: 'Martes de frutas y verduras' }, { timeout: 15_000 });
    const images = [...screen.getByRole('region', { name: /promociones/i }).querySelectorAll('img')];
    expect(images.length).toBeGreaterThan(1);
    expect(images[0]).toHaveAttribute('loading', 'eager');
    expect(images[0]).toHaveAttribute('fetchpriority', 'high');
    expect(images[0]).toHaveAttribute('width', '320');
    expect(images[0]).toHaveAttribute('height', '180');
    for (const image of images.slice(1)) {
      expect(image).toHaveAttribute('loading', 'lazy');
      expect(image).not.toHaveAttribute('fetchpriority', 'high');
    }
  }, 20_000);

  it('shows a loading state', async () => {
    hangs('/api/promotions');
    renderApp('/promociones');
    expect(await screen.findByText('Cargando promociones…')).toBeInTheDocument();
  });

  it('says so when there are no promotions', async () => {
    server.use(http.get('/api/promotions', () => HttpResponse.json({ ...promotions, promotions: [] })));
    renderApp('/promociones');
    expect(await screen.findByText(PROMOTIONS_EMPTY)).toBeInTheDocument();
  });

  it('shows a failure with a retry', async () => {
    server.use(http.get('/api/promotions', () => apiError('ERR_UNAVAILABLE')));
    const { user } = renderApp('/promociones');
    expect(await screen.findByRole('alert')).toHaveTextContent(PROMOTIONS_FAILED);
    server.resetHandlers();
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Martes de frutas y verduras' })).toBeInTheDocument();
  });

  it('shows the generic illustration when an image cannot be loaded', async () => {
    renderApp('/promociones');
    await screen.findByRole('heading', { level: 2, name: 'Martes de frutas y verduras' });
    const image = card('Martes de frutas y verduras').querySelector('img') as HTMLImageElement;
    fireEvent.error(image);
    expect(image).toHaveAttribute('src', '/images/contenido.svg');
  });

  // "/\evil.example" starts with one slash, but a browser reads it as "//evil.example".
  it.each(['javascript:alert(1)', '/\\evil.example/ofertas', '/\t/evil.example'])('never renders the unsafe link %j', async (linkUrl) => {
    const [tuesday] = promotions.promotions;
    server.use(http.get('/api/promotions', () => HttpResponse.json({ promotions: [{ ...tuesday!, linkUrl }] })));
    renderApp('/promociones');
    await screen.findByRole('heading', { level: 2, name: 'Martes de frutas y verduras' });
    expect(screen.queryByRole('link', { name: /Ver promoción/ })).not.toBeInTheDocument();
  });
});

describe('/alianzas', () => {
  it('shows each partner benefit with its conditions', async () => {
    renderApp('/alianzas');
    await screen.findByRole('heading', { level: 2, name: '3 cuotas sin interés' });
    const benefit = card('3 cuotas sin interés');
    expect(within(benefit).getByText('Banco BCI')).toBeInTheDocument();
    expect(within(benefit).getByRole('heading', { level: 3, name: 'Condiciones' })).toBeInTheDocument();
    expect(within(benefit).getByText('Compras sobre $30.000. No acumulable con otras promociones.')).toBeInTheDocument();
    expect(within(benefit).getByRole('link', { name: /Ver beneficio/ })).toHaveAttribute(
      'href',
      'https://www.tarjetaliderbci.cl/',
    );
  });

  it('shows loading, empty and failure states', async () => {
    hangs('/api/alliances');
    const first = renderApp('/alianzas');
    expect(await screen.findByText('Cargando beneficios…')).toBeInTheDocument();
    first.unmount();
    server.resetHandlers();

    server.use(http.get('/api/alliances', () => HttpResponse.json({ ...alliances, alliances: [] })));
    const second = renderApp('/alianzas');
    expect(await screen.findByText(ALLIANCES_EMPTY)).toBeInTheDocument();
    second.unmount();

    server.use(http.get('/api/alliances', () => HttpResponse.error()));
    renderApp('/alianzas');
    expect(await screen.findByRole('alert')).toHaveTextContent(ALLIANCES_FAILED);
    expect(screen.getByRole('button', { name: 'Reintentar' })).toBeInTheDocument();
  });
});

describe('the FAQs', () => {
  it('shows the login FAQs on /preguntas-login as an accordion', async () => {
    const { user } = renderApp('/preguntas-login');
    const question = await screen.findByText('¿Por qué me piden un código?');
    const details = question.closest('details') as HTMLDetailsElement;
    expect(details.open).toBe(false);
    await user.click(question);
    expect(details.open).toBe(true);
    expect(within(details).getByText('Por tu seguridad.')).toBeInTheDocument();
    expect(within(details).getByText('Te lo enviamos a tu correo.')).toBeInTheDocument();
    expect(sent.find((r) => r.path === '/api/faqs')).toBeDefined();
    expect(screen.queryByText('¿Cómo uso mi saldo?')).not.toBeInTheDocument();
  });

  it('shows the general FAQs where the footer link points', async () => {
    const { user } = renderApp('/alianzas');
    const footer = await screen.findByRole('contentinfo');
    const link = within(footer).getByRole('link', { name: 'Preguntas frecuentes' });
    expect(link).toHaveAttribute('href', '/preguntas-frecuentes');
    await user.click(link);
    expect(await screen.findByRole('heading', { level: 1, name: 'Preguntas frecuentes' })).toBeInTheDocument();
    expect(await screen.findByText('¿Cómo uso mi saldo?')).toBeInTheDocument();
  });

  it('reaches the login FAQs from /login', async () => {
    const { user } = renderApp('/login');
    await user.click(await screen.findByRole('link', { name: 'Preguntas frecuentes' }));
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Preguntas frecuentes para iniciar sesión' }),
    ).toBeInTheDocument();
    expect(currentLocation()).toBe('/preguntas-login');
  });

  it('shows loading, empty and failure states', async () => {
    hangs('/api/faqs');
    const first = renderApp('/preguntas-login');
    expect(await screen.findByText('Cargando preguntas…')).toBeInTheDocument();
    first.unmount();
    server.resetHandlers();

    server.use(http.get('/api/faqs', () => HttpResponse.json({ ...loginFaqs, faqs: [] })));
    const second = renderApp('/preguntas-login');
    expect(await screen.findByText(FAQS_EMPTY)).toBeInTheDocument();
    second.unmount();

    server.use(http.get('/api/faqs', () => apiError('ERR_INTERNAL')));
    renderApp('/preguntas-login');
    expect(await screen.findByRole('alert')).toHaveTextContent(FAQS_FAILED);
  });
});

describe('the campaign banners on the /mi-club home', () => {
  it('shows one banner at a time with its alt text, moved only by the member', async () => {
    loginAs();
    const { user } = renderApp('/mi-club');
    const carousel = await screen.findByRole('region', { name: 'Campañas Mi Club' });
    expect(within(carousel).getByRole('img')).toHaveAttribute(
      'alt',
      'Carro de supermercado con el texto 0,8% de acumulación',
    );
    expect(within(carousel).getByRole('link', { name: /Acumula 0,8% en todas tus compras/ })).toHaveAttribute(
      'href',
      '/promociones',
    );
    expect(within(carousel).getByText('1 de 2')).toBeInTheDocument();
    await user.click(within(carousel).getByRole('button', { name: 'Campaña siguiente' }));
    expect(within(carousel).getByRole('img')).toHaveAttribute('alt', 'Tarjeta Lider BCI con el texto lunes 6%');
    expect(within(carousel).getByText('2 de 2')).toBeInTheDocument();
    // A banner without a link is not a link.
    expect(within(carousel).queryByRole('link')).not.toBeInTheDocument();
    await user.click(within(carousel).getByRole('button', { name: 'Campaña siguiente' }));
    expect(within(carousel).getByText('1 de 2')).toBeInTheDocument();
    await user.click(within(carousel).getByRole('button', { name: 'Campaña anterior' }));
    expect(within(carousel).getByText('2 de 2')).toBeInTheDocument();
    // The balance is still there below.
    expect(await screen.findByTestId('balance-amount')).toHaveTextContent('$12.345');
  });

  it('shows nothing when there are no banners, a loading state and a failure with retry', async () => {
    loginAs();
    server.use(http.get('/api/banners', () => HttpResponse.json({ ...banners, banners: [] })));
    const first = renderApp('/mi-club');
    await screen.findByTestId('balance-amount');
    expect(screen.queryByRole('region', { name: 'Campañas Mi Club' })).not.toBeInTheDocument();
    first.unmount();

    hangs('/api/banners');
    const second = renderApp('/mi-club');
    expect(await screen.findByText('Cargando campañas…')).toBeInTheDocument();
    second.unmount();

    server.use(http.get('/api/banners', () => apiError('ERR_INTERNAL')));
    renderApp('/mi-club');
    expect(await screen.findByText(BANNERS_FAILED)).toBeInTheDocument();
    // The balance does not depend on the banners.
    expect(await screen.findByTestId('balance-amount')).toHaveTextContent('$12.345');
  });
});
