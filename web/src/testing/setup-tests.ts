import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';

import { stopSessionRenewal } from '@/app/session-keeper';
import { closeLoginModal } from '@/lib/login-modal';
import { endSession } from '@/lib/session';

import { requestViolation, responseViolation } from './contract';
import { forgetSentRequests, record } from './mocks/requests';
import { server } from './mocks/server';

// findBy/waitFor wait 5 s instead of testing-library's 1 s: a lazy route chunk takes longer than
// a second to load on a busy 2-core machine, which failed tests that were right. An element that
// never comes still fails the test.
configure({ asyncUtilTimeout: 5000 });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));

// Every request the app sends and every answer a handler gives, held to the gateway's document
// (see ./contract); checked when the test ends, so the test that broke the contract fails.
const checks: Promise<string | null>[] = [];
server.events.on('request:start', ({ request }) => {
  checks.push(requestViolation(request));
  // What the app sent, for the tests' assertions (./mocks/requests).
  void record(request);
});
server.events.on('response:mocked', ({ request, response }) => {
  checks.push(responseViolation(request, response));
});

beforeEach(() => {
  forgetSentRequests();
  window.dataLayer = [];
});

afterEach(async () => {
  const violations = (await Promise.all(checks.splice(0))).filter((violation) => violation !== null);
  // The reset comes first: a broken contract fails this test only, not the next one too.
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
  // A stubbed browser API (the Cache Storage of ./cache-storage) lasts one test.
  vi.unstubAllGlobals();
  expect(violations, 'requests and answers outside the gateway contract').toEqual([]);
});

afterAll(() => server.close());
