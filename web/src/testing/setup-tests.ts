import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

import { stopSessionRenewal } from '@/app/session-keeper';
import { closeLoginModal } from '@/lib/login-modal';
import { endSession } from '@/lib/session';

import { resetDb } from './mocks/db';
import { server } from './mocks/server';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));

beforeEach(() => {
  resetDb();
  window.dataLayer = [];
});

afterEach(() => {
  cleanup();
  server.resetHandlers();
  for (const cookie of document.cookie.split(';')) {
    const name = cookie.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; Path=/; Max-Age=0`;
  }
  endSession();
  stopSessionRenewal();
  closeLoginModal();
  window.localStorage.clear();
  window.sessionStorage.clear();
});

afterAll(() => server.close());
