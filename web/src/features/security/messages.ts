/** What a member reads in Actividad de la cuenta. */
import { SHARED_MESSAGES } from '@/lib/messages';

export const SECURITY_COPY = {
  title: 'Actividad de la cuenta',
  intro:
    'Revisa dónde tienes tu cuenta abierta y lo que ha pasado con ella. Si no reconoces una sesión, ciérrala y cambia tu contraseña.',
  back: 'Volver a Mis Datos',
  sessionsTitle: 'Sesiones abiertas',
  sessionsLoading: 'Cargando tus sesiones…',
  sessionsFailed: 'No pudimos cargar tus sesiones. Intenta de nuevo más tarde.',
  thisSession: 'Esta sesión',
  startedAt: 'Iniciada el',
  lastSeenAt: 'Última actividad:',
  closeSession: 'Cerrar sesión',
  closeSessionLabel: (device: string, started: string) => `Cerrar la sesión de ${device} iniciada el ${started}`,
  closeOthers: 'Cerrar las demás sesiones',
  noOthers: 'No tienes otras sesiones abiertas.',
  sessionClosed: 'Cerramos la sesión.',
  othersClosed: (count: number) =>
    count === 0
      ? 'No había otras sesiones abiertas.'
      : count === 1
        ? 'Cerramos 1 sesión.'
        : `Cerramos ${count} sesiones.`,
  closeFailed: 'No pudimos cerrar la sesión. Intenta de nuevo más tarde.',
  eventsTitle: 'Eventos de seguridad',
  eventsPeriod: 'Últimos 90 días.',
  eventsLoading: 'Cargando los eventos de seguridad…',
  eventsFailed: 'No pudimos cargar los eventos de seguridad. Intenta de nuevo más tarde.',
  eventsEmpty: 'No hay eventos de seguridad en los últimos 90 días.',
  unknownBrowser: 'Navegador desconocido',
  unknownSystem: 'sistema desconocido',
  deviceOf: (browser: string, os: string) => `${browser} en ${os}`,
  eventLoginSucceeded: 'Inicio de sesión',
  eventWrongPassword: 'Intento de inicio de sesión fallido: contraseña incorrecta',
  eventWrongCode: 'Intento de inicio de sesión fallido: código incorrecto',
  eventWrongCurrentPassword: 'Contraseña incorrecta al confirmar un cambio',
  eventPasswordChanged: 'Cambio de contraseña',
  eventRecoveryRequested: 'Solicitud de recuperación de contraseña',
  eventWrongRecoveryCode: 'Intento de recuperación fallido: código incorrecto',
  eventPasswordReset: 'Recuperación de contraseña',
  eventEmailChanged: 'Cambio de correo electrónico',
  eventSessionEnded: 'Cierre de una sesión',
  eventOtherSessionsEnded: 'Cierre de las demás sesiones',
  eventAllSessionsEnded: 'Cierre de todas las sesiones',
  eventUnknown: 'Actividad de seguridad',
  retry: SHARED_MESSAGES.retry,
} as const;
