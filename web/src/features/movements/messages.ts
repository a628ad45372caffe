/** What a member reads in Mis Movimientos. */
import { SHARED_MESSAGES } from '@/lib/messages';

export const MOVEMENTS_COPY = {
  title: 'Mis Movimientos',
  empty: 'No tienes movimientos en este mes.',
  failed: 'No pudimos cargar tus movimientos. Intenta de nuevo más tarde.',
  loading: 'Cargando tus movimientos…',
  month: 'Mes',
  year: 'Año',
  listLabel: (period: string) => `Movimientos de ${period}`,
  pagesLabel: 'Páginas de movimientos',
  previous: 'Anterior',
  next: 'Siguiente',
  kindAccrual: 'Acumulación',
  kindRedemption: 'Canje',
  kindExpiration: 'Vencimiento',
  kindAdjustment: 'Ajuste',
  kindUnknown: 'Movimiento',
  statusPending: 'Pendiente',
  statusConfirmed: 'Confirmado',
  noAccount: SHARED_MESSAGES.noAccount,
  activateAccount: SHARED_MESSAGES.activateAccount,
  joinMiClub: SHARED_MESSAGES.joinMiClub,
  retry: SHARED_MESSAGES.retry,
} as const;
