/** Rendering the real routes and providers around a memory router and a quiet query client. */
import { QueryClient } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useLayoutEffect } from 'react';
import { MemoryRouter, useLocation } from 'react-router-dom';

import { AppProvider } from '@/app/provider';
import { AppRoutes } from '@/app/router';
import { resetAccountMenu } from '@/features/account/stores/account-menu';
import { HAS_MISSIONS_STORAGE_KEY, restoreSession } from '@/lib/session';

import { loginAs } from './mocks/db';

export function createTestQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { retry: false } },
  });
}

let currentPath = '/';

function LocationProbe() {
  const { pathname } = useLocation();
  // A layout effect runs in the commit that shows the new route, before a test's findBy* resolves.
  useLayoutEffect(() => {
    currentPath = pathname;
  }, [pathname]);
  return null;
}

/** The path the router is on now. */
export function currentLocation(): string {
  return currentPath;
}

/** Renders the whole app at `path`, as a first load: the session is read from cookies/storage. */
export function renderApp(path: string, options: { queryClient?: QueryClient } = {}) {
  restoreSession();
  resetAccountMenu();
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
 * What a reload finds in storage for a logged-in member: the has-missions flag at most, never the
 * name (src/lib/session.ts). Pair it with `loginAs`, which sets the `is-logged` cookie.
 */
export function storeHasMissions(hasMissions: boolean): void {
  if (hasMissions) window.localStorage.setItem(HAS_MISSIONS_STORAGE_KEY, 'true');
}

/** The `window.dataLayer` entries with this event name. */
export function dataLayerEvents(event: string): Record<string, unknown>[] {
  return (window.dataLayer ?? []).filter((entry) => entry.event === event);
}

/**
 * A member back on /mi-club after a reload (session cookie set, name read again), with the menu entry
 * `section` open and its heading shown.
 */
export async function renderAccountSection(memberName: string, section: string, options: { queryClient?: QueryClient } = {}) {
  const member = loginAs(memberName);
  storeHasMissions(member.hasMissions);
  const view = renderApp('/mi-club', options);
  // The greeting is there at once; the name follows from GET /api/profile (never from storage).
  await screen.findByRole('heading', { level: 1, name: /^Hola/ });
  await view.user.click(screen.getByRole('button', { name: section }));
  await screen.findByRole('heading', { level: 2, name: section });
  return view;
}
