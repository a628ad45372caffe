/** What a member reads for each kind and status of movement. */
import type { MovementKind, MovementStatus } from '../api/get-movements';
import { MOVEMENTS_COPY as M } from '../messages';

export const KIND_LABELS: Record<MovementKind, string> = {
  accrual: M.kindAccrual,
  redemption: M.kindRedemption,
  expiration: M.kindExpiration,
  adjustment: M.kindAdjustment,
};

export const STATUS_LABELS: Record<MovementStatus, string> = {
  pending: M.statusPending,
  confirmed: M.statusConfirmed,
};

export function kindLabel(kind: string): string {
  return KIND_LABELS[kind as MovementKind] ?? M.kindUnknown;
}

export function statusLabel(status: string): string {
  return STATUS_LABELS[status as MovementStatus] ?? status;
}
