import { describe, expect, it } from 'vitest';

import { ensureUserIdCookie, hasLoggedCookie, randomUuid, readCookie } from './cookies';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('cookies', () => {
  it('creates a user_id cookie holding a random UUID on first load', () => {
    expect(readCookie('user_id')).toBeNull();
    const id = ensureUserIdCookie();
    expect(id).toMatch(UUID_V4);
    expect(readCookie('user_id')).toBe(id);
  });

  it('keeps an existing user_id cookie', () => {
    document.cookie = 'user_id=existing-id; Path=/';
    expect(ensureUserIdCookie()).toBe('existing-id');
    expect(readCookie('user_id')).toBe('existing-id');
  });

  it('builds a version 4 UUID even where crypto.randomUUID is missing', () => {
    const original = crypto.randomUUID;
    Object.defineProperty(crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      expect(randomUuid()).toMatch(UUID_V4);
    } finally {
      Object.defineProperty(crypto, 'randomUUID', { value: original, configurable: true });
    }
  });

  it('reads the gateway is-logged cookie', () => {
    expect(hasLoggedCookie()).toBe(false);
    document.cookie = 'is-logged=true; Path=/';
    expect(hasLoggedCookie()).toBe(true);
  });
});
