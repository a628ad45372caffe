/** Member-facing copy that several features show word for word. */
export const SHARED_MESSAGES = {
  /** The one-time code of the login and of the password recovery was not six digits. */
  codeIncomplete: 'Ingresa los 6 dígitos del código.',
  /** How long a mailed code lasts, in whole minutes. */
  minutes: (minutes: number) => `${minutes} ${minutes === 1 ? 'minuto' : 'minutos'}`,
  back: 'Volver',
  logIn: 'Iniciar sesión',
  retry: 'Reintentar',
  /** A member with a session but no club account yet (balance and movements). */
  noAccount: 'Aún no tienes una cuenta Mi Club.',
  activateAccount: 'Activa tu cuenta para empezar a acumular saldo en cada compra.',
  joinMiClub: 'Únete a Mi Club',
} as const;
