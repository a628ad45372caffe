/** What a member reads on Mi Cuenta: the greeting, the menu and the balance. */
import { SHARED_MESSAGES } from '@/lib/messages';

export const ACCOUNT_COPY = {
  greeting: (name: string) => (name ? `Hola, ${name}` : 'Hola'),
  menuLabel: 'Menú de mi cuenta',
  logOut: 'Cerrar sesión',
  balanceTitle: 'Tu saldo Mi Club',
  balanceLoading: 'Cargando tu saldo…',
  balanceNote: 'Úsalo como dinero en tus compras en Lider.',
  balanceUpdated: (when: string) => ` Actualizado al ${when}.`,
  balanceFailed: 'No pudimos cargar tu saldo. Intenta de nuevo más tarde.',
  noAccount: SHARED_MESSAGES.noAccount,
  activateAccount: SHARED_MESSAGES.activateAccount,
  joinMiClub: SHARED_MESSAGES.joinMiClub,
  retry: SHARED_MESSAGES.retry,
} as const;
