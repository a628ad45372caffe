/** What a member reads in Misiones. */
import { SHARED_MESSAGES } from '@/lib/messages';

export const MISSIONS_COPY = {
  title: 'Misiones',
  empty: 'Aún no tienes misiones activas.',
  conflict: 'Estamos preparando tus misiones. Vuelve a intentarlo en unos minutos.',
  failed: 'No pudimos cargar tus misiones. Intenta de nuevo más tarde.',
  loading: 'Cargando tus misiones…',
  completed: 'Completada',
  expired: 'Vencida',
  purchases: (progress: number, goal: number) => `${progress} de ${goal} ${goal === 1 ? 'compra' : 'compras'}`,
  amounts: (progress: string, goal: string) => `${progress} de ${goal}`,
  ended: (day: string) => `Terminó el ${day}`,
  ends: (day: string) => `Termina el ${day}`,
  retry: SHARED_MESSAGES.retry,
} as const;
