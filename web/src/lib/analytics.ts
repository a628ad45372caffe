/**
 * Pushes to `window.dataLayer` (spec section 7). Event names are Spanish identifiers; each event's
 * fields are typed here so later features add their events to `AnalyticsEvents` and reuse `track`.
 */

/**
 * The page types of `tipo_pagina`, one per route. The account area has one per section since the
 * sections have addresses: `mi_club` is Mi Cuenta (/mi-club, as before: the balance page), and each
 * other section is `mi_club_<section>`, so a report on the account area as a whole still finds all
 * of it under the `mi_club` prefix while each section's visits can be counted on their own.
 */
export type PageType =
  | 'login'
  | 'mi_club'
  | 'mi_club_mis_datos'
  | 'mi_club_actividad'
  | 'mi_club_mis_movimientos'
  /** One movement explained: /mi-club/movimientos/{id}. */
  | 'mi_club_detalle_movimiento'
  | 'mi_club_terminos'
  | 'mi_club_misiones'
  /** The member card for the till (#21): /mi-club/tarjeta. */
  | 'mi_club_tarjeta'
  | 'registro'
  | 'promociones'
  | 'alianzas'
  | 'recuperar_contrasena'
  | 'preguntas_login'
  | 'preguntas_frecuentes'
  | 'terminos_y_condiciones'
  | 'confirmar_correo'
  | 'restaurar_correo'
  | 'verificar_correo'
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
  /** Registration: the gateway accepted the document of step 1 (a new flow started). */
  registro_paso_1: { tipo_documento: 'rut' | 'extranjero' };
  /** Registration: the gateway accepted the personal data of step 2. */
  registro_paso_2: { tipo_documento: 'rut' | 'extranjero' };
  /** Registration: the gateway accepted the password and terms of step 3. */
  registro_paso_3: { tipo_documento: 'rut' | 'extranjero' };
  /** Registration: the member exists and the verification email went out. */
  registro_exitoso: { tipo_documento: 'rut' | 'extranjero' };
  /** Registration: the gateway refused a step or did not answer (`codigo_error` as in `login_fallido`). */
  registro_fallido: { paso: 1 | 2 | 3; codigo_error: string };
  /**
   * Joining in place from Mi Cuenta (a member with a login but no club account): the gateway
   * opened the account (`cuenta_nueva` false when it was already open, e.g. a second tab).
   */
  union_club_exitosa: { cuenta_nueva: boolean };
  /** Joining in place: the form or the gateway refused, or no answer (`codigo_error` as in `login_fallido`). */
  union_club_fallida: { codigo_error: string };
  /** Unsubscribe: the gateway accepted the identity of step 1. */
  'desuscripción_paso_1': { ya_desuscrito: boolean };
  /** Unsubscribe: a reason was chosen and the confirmation modal opened (`motivo` is its id). */
  'desuscripción_paso_2': { motivo: number };
  /** Unsubscribe: the gateway confirmed it. */
  'desuscripción_confirmada': { motivo: number };
  /** Unsubscribe: the gateway refused a step or did not answer. */
  'desuscripción_fallida': { paso: 1 | 2; codigo_error: string };
  /** Promotions: the member followed a promotion's link ("Ver promoción"). */
  promocion_click: { promocion_id: string; promocion_titulo: string };
  /** Promotions: the member opened a promotion's details. */
  promocion_seleccion: { promocion_id: string; promocion_titulo: string };
  /**
   * Simulator: "Calcular" was pressed with a valid form; `weekDay` 1 (lunes) to 7 (domingo) and
   * the five amounts in whole pesos (spec section 7).
   */
  simulador_calcular: {
    weekDay: number;
    meatAmount: number;
    fruitsAndVegetablesAmount: number;
    cleaningAmount: number;
    drinksAmount: number;
    otherAmount: number;
    partnerCard: boolean;
  };
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
