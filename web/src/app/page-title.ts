/**
 * The document title of every page: "<page> · Mi Club", and the spec's "Mi Club" alone for the
 * home (/, which opens Mi Cuenta) and the maintenance screen (the whole portal, not a page of it).
 * One map by page type (./page-type.ts), one hook that sets it.
 */
import { useEffect } from 'react';

import type { PageType } from '@/lib/analytics';

import { pageTypeOf } from './page-type';

export const PRODUCT_TITLE = 'Mi Club';

/** What each page is called in the title; the account sections use their menu labels. */
export const PAGE_NAMES: Readonly<Record<Exclude<PageType, 'mantencion'>, string>> = {
  login: 'Inicia sesión',
  mi_club: 'Mi Cuenta',
  mi_club_mis_datos: 'Mis Datos',
  mi_club_actividad: 'Actividad de la cuenta',
  mi_club_mis_movimientos: 'Mis Movimientos',
  mi_club_detalle_movimiento: 'Detalle del movimiento',
  mi_club_terminos: 'Términos y Condiciones',
  mi_club_misiones: 'Misiones',
  mi_club_tarjeta: 'Mi Tarjeta',
  registro: 'Regístrate',
  verificar_correo: 'Verifica tu correo electrónico',
  recuperar_contrasena: 'Recupera tu contraseña',
  confirmar_correo: 'Confirmación de correo',
  restaurar_correo: 'Restaurar tu correo',
  promociones: 'Promociones',
  alianzas: 'Alianzas',
  preguntas_login: 'Preguntas frecuentes para iniciar sesión',
  preguntas_frecuentes: 'Preguntas frecuentes',
  terminos_y_condiciones: 'Términos y condiciones',
  no_encontrada: 'Página no encontrada',
};

export function pageTitleOf(pathname: string, options: { isMaintenance?: boolean } = {}): string {
  if (options.isMaintenance || pathname === '/') return PRODUCT_TITLE;
  const pageType = pageTypeOf(pathname);
  if (pageType === 'mantencion') return PRODUCT_TITLE;
  return `${PAGE_NAMES[pageType]} · ${PRODUCT_TITLE}`;
}

/** Sets `document.title` to `title` while it is the page's. */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title;
  }, [title]);
}
