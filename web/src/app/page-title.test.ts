import { describe, expect, it } from 'vitest';

import { ACCOUNT_MENU, menuItemOfPath, menuPathOf, sectionFor } from '@/features/account/stores/account-menu';

import { PAGE_NAMES, pageTitleOf } from './page-title';
import { PAGE_TYPES, pageTypeOf } from './page-type';

describe('the account sections and their addresses', () => {
  it('gives each of the spec indexes 0-4 and the card [5] its own address, and back', () => {
    expect(ACCOUNT_MENU.map((item) => [item.index, item.path])).toEqual([
      [0, '/mi-club'],
      [1, '/mi-club/mis-datos'],
      [2, '/mi-club/movimientos'],
      [3, '/mi-club/terminos'],
      [4, '/mi-club/misiones'],
      [5, '/mi-club/tarjeta'],
    ]);
    for (const item of ACCOUNT_MENU) {
      expect(menuItemOfPath(item.path)?.index).toBe(item.index);
      expect(menuItemOfPath(`${item.path}/`)?.index).toBe(item.index);
      expect(menuPathOf(item.index)).toBe(item.path);
    }
  });

  it('names no section for other addresses', () => {
    for (const path of ['/', '/mi-club/x', '/mi-club/mis-datos/x', '/mi-clubx', '/MI-CLUB', '/mi-club/Misiones', '/promociones']) {
      expect(menuItemOfPath(path)).toBeNull();
    }
    expect(menuPathOf(9)).toBe('/mi-club');
  });

  it('sends a member without missions from Misiones to Mi Cuenta, and unknown addresses to not found', () => {
    expect(sectionFor('/mi-club/misiones', true)).toMatchObject({ kind: 'section', item: { index: 4 } });
    expect(sectionFor('/mi-club/misiones', false)).toEqual({ kind: 'redirect', to: '/mi-club' });
    expect(sectionFor('/mi-club/movimientos', false)).toMatchObject({ kind: 'section', item: { index: 2 } });
    expect(sectionFor('/mi-club/nada', true)).toEqual({ kind: 'not-found' });
  });

  it('has a page type for every section, under the mi_club prefix', () => {
    expect(ACCOUNT_MENU.map((item) => pageTypeOf(item.path))).toEqual([
      'mi_club',
      'mi_club_mis_datos',
      'mi_club_mis_movimientos',
      'mi_club_terminos',
      'mi_club_misiones',
      'mi_club_tarjeta',
    ]);
    expect(pageTypeOf('/mi-club/movimientos/')).toBe('mi_club_mis_movimientos');
    expect(pageTypeOf('/mi-club/otra')).toBe('no_encontrada');
  });
});

describe('the document title', () => {
  it('names each section "<section> · Mi Club" with its menu label', () => {
    expect(ACCOUNT_MENU.map((item) => pageTitleOf(item.path))).toEqual([
      'Mi Cuenta · Mi Club',
      'Mis Datos · Mi Club',
      'Mis Movimientos · Mi Club',
      'Términos y Condiciones · Mi Club',
      'Misiones · Mi Club',
      'Mi Tarjeta · Mi Club',
    ]);
  });

  it('gives every route of the portal its own title', () => {
    const titles = Object.keys(PAGE_TYPES).map((path) => pageTitleOf(path));
    for (const title of titles) expect(title).toMatch(/^\S.* · Mi Club$/);
    expect(new Set(titles).size).toBe(titles.length);
    expect(pageTitleOf('/login')).toBe('Inicia sesión · Mi Club');
    expect(pageTitleOf('/promociones')).toBe('Promociones · Mi Club');
    expect(pageTitleOf('/registro/verificar-correo')).toBe('Verifica tu correo electrónico · Mi Club');
  });

  it('says "Mi Club", the spec title, for the home and the maintenance screen', () => {
    expect(pageTitleOf('/')).toBe('Mi Club');
    expect(pageTitleOf('/mi-club/movimientos', { isMaintenance: true })).toBe('Mi Club');
  });

  it('says "Página no encontrada" for an unknown address', () => {
    expect(pageTitleOf('/no-existe')).toBe('Página no encontrada · Mi Club');
    expect(pageTitleOf('/mi-club/no-existe')).toBe('Página no encontrada · Mi Club');
  });

  it('names every page type but maintenance', () => {
    expect(Object.keys(PAGE_NAMES).sort()).toEqual(
      [...new Set([...Object.values(PAGE_TYPES), 'mi_club_detalle_movimiento', 'no_encontrada'])].sort(),
    );
  });

  it('names a movement explained, whatever its id, and nothing deeper', () => {
    expect(pageTitleOf('/mi-club/movimientos/nov-3')).toBe('Detalle del movimiento · Mi Club');
    expect(pageTypeOf('/mi-club/movimientos/a%20b/')).toBe('mi_club_detalle_movimiento');
    expect(pageTypeOf('/mi-club/movimientos/a/b')).toBe('no_encontrada');
  });
});
