/** Rendering the real routes and providers around a memory router and a quiet query client. */
import { QueryClient } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { useLayoutEffect } from 'react';
import { MemoryRouter, useLocation } from 'react-router-dom';

import { AppProvider } from '@/app/provider';
import { AppRoutes } from '@/app/router';
import type { Schemas } from '@/lib/api-types';
import { HAS_MISSIONS_STORAGE_KEY, restoreSession } from '@/lib/session';

import { anaProfile, context } from './fixtures/session';
import { server } from './mocks/server';

export function createTestQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { retry: false } },
  });
}

let currentPath = '/';
let currentSearch = '';
let shownUrls: string[] = [];

function LocationProbe() {
  const { pathname, search } = useLocation();
  // A layout effect runs in the commit that shows the new route, before a test's findBy* resolves.
  useLayoutEffect(() => {
    currentPath = pathname;
    currentSearch = search;
    shownUrls.push(pathname + search);
  }, [pathname, search]);
  return null;
}

/** The path the router is on now. */
export function currentLocation(): string {
  return currentPath;
}

/** The path and query string the router is on now (`/mi-club/movimientos?mes=2026-10`). */
export function currentUrl(): string {
  return currentPath + currentSearch;
}

/** Every address the router showed since `renderApp`, in order, redirects included. */
export function shownLocations(): readonly string[] {
  return shownUrls;
}

/** The entry `label` of the account menu (a link to its section). */
export function accountMenuLink(label: string): HTMLElement {
  return within(screen.getByRole('navigation', { name: 'Menú de mi cuenta' })).getByRole('link', { name: label });
}

/** Renders the whole app at `path`, as a first load: the session is read from cookies/storage. */
export function renderApp(path: string, options: { queryClient?: QueryClient } = {}) {
  restoreSession();
  shownUrls = [];
  const queryClient = options.queryClient ?? createTestQueryClient();
  const user = userEvent.setup();
  // Like index.html: the app lives in #root, which the login modal makes inert while open.
  const container = document.body.appendChild(document.createElement('div'));
  container.id = 'root';
  const result = render(
    <AppProvider queryClient={queryClient}>
      <MemoryRouter initialEntries={[path]}>
        <LocationProbe />
        <AppRoutes />
      </MemoryRouter>
    </AppProvider>,
    { container },
  );
  return { ...result, user, queryClient };
}

/**
 * A member with a session, as a reload finds it: the `is-logged` cookie set, and GET /api/profile
 * answering `profile` (Ana by default, whom the default handlers answer for).
 */
export function loginAs(profile: Schemas['User'] = anaProfile): Schemas['User'] {
  document.cookie = 'is-logged=true; Path=/';
  if (profile !== anaProfile) server.use(http.get('/api/profile', () => HttpResponse.json(profile)));
  return profile;
}

/**
 * What a reload finds in storage for a logged-in member: the has-missions flag at most, never the
 * name (src/lib/session.ts). Pair it with `loginAs`, which sets the `is-logged` cookie.
 */
export function storeHasMissions(hasMissions: boolean): void {
  if (hasMissions) window.localStorage.setItem(HAS_MISSIONS_STORAGE_KEY, 'true');
}

/** GET /api/context answers the default context with `changes`, from now on (a flag turned by ops). */
export function contextSays(changes: Partial<Schemas['Context']>): void {
  server.use(http.get('/api/context', () => HttpResponse.json({ ...context, ...changes })));
}

/** The `window.dataLayer` entries with this event name. */
export function dataLayerEvents(event: string): Record<string, unknown>[] {
  return (window.dataLayer ?? []).filter((entry) => entry.event === event);
}

/**
 * A member back on /mi-club after a reload (session cookie set, name read again), who opens the
 * menu entry `section` and sees its heading. Ana by default, who has missions; another `profile`
 * has none.
 */
export async function renderAccountSection(
  section: string,
  options: { profile?: Schemas['User']; queryClient?: QueryClient } = {},
) {
  const profile = loginAs(options.profile);
  storeHasMissions(profile === anaProfile);
  const view = renderApp('/mi-club', options);
  // The greeting is there once the route's chunks are in (slow on a busy machine); the name follows
  // from GET /api/profile (never from storage).
  await screen.findByRole('heading', { level: 1, name: /^Hola/ }, { timeout: 4_000 });
  await view.user.click(accountMenuLink(section));
  await screen.findByRole('heading', { level: 2, name: section }, { timeout: 4_000 });
  return view;
}
