/** What a member reads for each kind and status of movement. */
import type { MovementKind, MovementStatus } from '../api/get-movements';

export const KIND_LABELS: Record<MovementKind, string> = {
  accrual: 'Acumulación',
  redemption: 'Canje',
  expiration: 'Vencimiento',
  adjustment: 'Ajuste',
};

export const STATUS_LABELS: Record<MovementStatus, string> = {
  pending: 'Pendiente',
  confirmed: 'Confirmado',
};

export function kindLabel(kind: string): string {
  return KIND_LABELS[kind as MovementKind] ?? 'Movimiento';
}

export function statusLabel(status: string): string {
  return STATUS_LABELS[status as MovementStatus] ?? status;
}
