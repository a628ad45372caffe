/** What a member reads about the terms and conditions (the page and the Mi Cuenta section). */
import { SHARED_MESSAGES } from '@/lib/messages';

export const TERMS_COPY = {
  pageTitle: 'Términos y condiciones',
  sectionTitle: 'Términos y Condiciones',
  loading: 'Cargando los términos y condiciones…',
  loadFailed: 'No pudimos cargar los términos y condiciones. Intenta de nuevo más tarde.',
  updateFailed: 'No pudimos actualizar tus términos y condiciones, intenta de nuevo más tarde.',
  decisionLoading: 'Cargando tu decisión…',
  undecided: 'Aún no has aceptado ni rechazado los términos y condiciones.',
  accepted: (on: string) => `Aceptaste los términos y condiciones${on}.`,
  rejected: (on: string) => `Rechazaste los términos y condiciones${on}. Puedes aceptarlos cuando quieras.`,
  on: (date: string) => ` el ${date}`,
  version: 'Versión ',
  inForceSince: (date: string) => `, vigente desde el ${date}`,
  textLabel: 'Texto de los términos y condiciones',
  accept: 'Aceptar',
  reject: 'Rechazar',
  rejectTitle: '¿Quieres rechazar los términos y condiciones?',
  rejectConsequence:
    'Si los rechazas, no podremos ofrecerte los beneficios de Mi Club que requieren tu aceptación de los términos y condiciones. Tu saldo y tus movimientos no cambian.',
  rejectReversible: 'Puedes volver a aceptarlos cuando quieras desde Mi Club, en Términos y Condiciones.',
  back: SHARED_MESSAGES.back,
  confirmReject: 'Sí, rechazar',
  retry: SHARED_MESSAGES.retry,
  newVersionTitle: 'Actualizamos nuestros términos y condiciones',
  newVersionIntro: 'Publicamos una nueva versión de los términos y condiciones de Mi Club. Léela y dinos si la aceptas o la rechazas.',
  later: 'Decidir más tarde',
} as const;
