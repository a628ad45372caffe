/**
 * Pushes to `window.dataLayer` (spec section 7). Event names are Spanish identifiers; each event's
 * fields are typed here so later features add their events to `AnalyticsEvents` and reuse `track`.
 */

export type PageType =
  | 'login'
  | 'mi_club'
  | 'registro'
  | 'promociones'
  | 'alianzas'
  | 'recuperar_contrasena'
  | 'preguntas_login'
  | 'terminos_y_condiciones'
  | 'confirmar_correo'
  | 'mantencion'
  | 'no_encontrada';

/** Event name → the fields pushed with it. */
export interface AnalyticsEvents {
  tipo_pagina: { tipo_pagina: PageType; ruta: string };
  clic_boton: { nombre_boton: string; seccion: string };
  login_exitoso: { metodo: 'pagina' | 'modal'; usuario_migrando: boolean };
  login_fallido: { metodo: 'pagina' | 'modal'; paso: 'contrasena' | 'codigo'; codigo_error: string };
  /** The member accepted the terms in force (`version`). */
  terminos_y_condiciones_aceptado: { version: string };
  /** The member rejected the terms in force (`version`). */
  terminos_y_condiciones_rechazado: { version: string };
  /** Mis Movimientos: the member chose another month (1-12) or year (spec section 7). */
  historial_cambio_fecha: { mes: number; anio: number };
  /** Password recovery: the gateway accepted the RUT or document (its answer is neutral). */
  recuperar_contrasena_paso_1: { tipo_documento: 'rut' | 'extranjero' };
  /** Password recovery: code and new password passed the form's checks and were sent. */
  recuperar_contrasena_paso_2: { reenvios: number };
  /** Password recovery: the gateway changed the password (and ended every session). */
  recuperar_contrasena_exitoso: { reenvios: number };
}

export type AnalyticsEventName = keyof AnalyticsEvents;
export type DataLayerEntry = { event: AnalyticsEventName } & Record<string, unknown>;

declare global {
  interface Window {
    dataLayer?: Record<string, unknown>[];
  }
}

export function track<E extends AnalyticsEventName>(event: E, fields: AnalyticsEvents[E]): void {
  window.dataLayer = window.dataLayer ?? [];
  window.dataLayer.push({ event, ...fields });
}

export function trackPageType(pageType: PageType, path: string): void {
  track('tipo_pagina', { tipo_pagina: pageType, ruta: path });
}

export function trackClick(buttonName: string, section: string): void {
  track('clic_boton', { nombre_boton: buttonName, seccion: section });
}
