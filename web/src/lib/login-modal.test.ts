import { describe, expect, it } from 'vitest';

import { safeRedirect } from './login-modal';

describe('the redirect after login', () => {
  it('keeps a path of this site with its query string', () => {
    expect(safeRedirect('/mi-club/movimientos?mes=2026-10&pagina=2')).toBe('/mi-club/movimientos?mes=2026-10&pagina=2');
    expect(safeRedirect('/mi-club')).toBe('/mi-club');
  });

  it.each([
    null,
    '',
    'mi-club',
    'https://evil.example/mi-club',
    '//evil.example/mi-club',
    '/\\evil.example/mi-club',
    '/\t/evil.example/mi-club',
    '/\n/evil.example/mi-club',
    '/\r\n/evil.example',
    'javascript:alert(1)',
  ])('refuses %j, which does not stay on this site', (url) => {
    expect(safeRedirect(url)).toBeNull();
  });
});
