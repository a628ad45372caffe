import { describe, expect, it } from 'vitest';

import { isPortalPath } from './portal-path';

describe('a path of this site', () => {
  it.each(['/', '/mi-club', '/promociones?x=1#y', '/preguntas-frecuentes'])('is %j', (url) => {
    expect(isPortalPath(url)).toBe(true);
  });

  it.each([
    '',
    'mi-club',
    'https://evil.example/mi-club',
    '//evil.example/mi-club',
    '/\\evil.example/mi-club',
    '/\\/evil.example',
    '/mi-club\\..\\x',
    '/\t/evil.example',
    '/\n/evil.example',
    'javascript:alert(1)',
  ])('is not %j, which a browser resolves elsewhere or never is a route', (url) => {
    expect(isPortalPath(url)).toBe(false);
  });
});
