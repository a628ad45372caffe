/**
 * Which page a path is, for analytics (`tipo_pagina`), the document title (./page-title.ts) and
 * route preloading: one map from the router's paths to page types.
 */
import { movementIdOfPath, normalizePath } from '@/features/account/stores/account-menu';
import type { PageType } from '@/lib/analytics';

export const PAGE_TYPES: Readonly<Record<string, PageType>> = {
  '/login': 'login',
  '/mi-club': 'mi_club',
  '/mi-club/mis-datos': 'mi_club_mis_datos',
  '/mi-club/mis-datos/actividad': 'mi_club_actividad',
  '/mi-club/movimientos': 'mi_club_mis_movimientos',
  '/mi-club/terminos': 'mi_club_terminos',
  '/mi-club/misiones': 'mi_club_misiones',
  '/mi-club/tarjeta': 'mi_club_tarjeta',
  '/terminos-y-condiciones': 'terminos_y_condiciones',
  '/confirmar-correo': 'confirmar_correo',
  '/restaurar-correo': 'restaurar_correo',
  '/recuperar-contrasena': 'recuperar_contrasena',
  '/registro': 'registro',
  '/registro/verificar-correo': 'verificar_correo',
  '/promociones': 'promociones',
  '/alianzas': 'alianzas',
  '/preguntas-login': 'preguntas_login',
  '/preguntas-frecuentes': 'preguntas_frecuentes',
};

export function pageTypeOf(pathname: string): PageType {
  if (movementIdOfPath(pathname) !== null) return 'mi_club_detalle_movimiento';
  return PAGE_TYPES[normalizePath(pathname)] ?? 'no_encontrada';
}

/** Mi Cuenta and its sections: the /mi-club route's chunk. */
export function isAccountPage(pageType: PageType): boolean {
  return pageType === 'mi_club' || pageType.startsWith('mi_club_');
}
