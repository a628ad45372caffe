/** The account menu and its selection (spec section 2): indexes are the spec's, not positions. */
import { createStore, useStore } from '@/lib/store';

export type AccountMenuItem = {
  index: 0 | 1 | 2 | 3 | 4;
  label: string;
  /** Shown only when the member has missions. */
  requiresMissions?: boolean;
};

// The spec's menu names stay here rather than in ../messages.ts: this store is part of the
// initial bundle, and importing the feature's copy would pull all of it in with it.
export const ACCOUNT_MENU: readonly AccountMenuItem[] = [
  { index: 0, label: 'Mi Cuenta' },
  { index: 1, label: 'Mis Datos' },
  { index: 2, label: 'Mis Movimientos' },
  { index: 3, label: 'Términos y Condiciones' },
  { index: 4, label: 'Misiones', requiresMissions: true },
];

export const DEFAULT_MENU_INDEX = 0;

export function visibleMenuItems(hasMissions: boolean): AccountMenuItem[] {
  return ACCOUNT_MENU.filter((item) => !item.requiresMissions || hasMissions);
}

export const accountMenuStore = createStore<number>(DEFAULT_MENU_INDEX);

/** A message for the member shown above the selected section until the menu is used again. */
export const accountNoticeStore = createStore<string | null>(null);

export function selectAccountMenu(index: number): void {
  accountNoticeStore.set(null);
  accountMenuStore.set(index);
}

/** Goes to `index` and tells the member why (e.g. after the terms were updated). */
export function selectAccountMenuWithNotice(index: number, notice: string): void {
  accountMenuStore.set(index);
  accountNoticeStore.set(notice);
}

/** Back to "Mi Cuenta"; part of logout (spec section 4). */
export function resetAccountMenu(): void {
  accountNoticeStore.set(null);
  accountMenuStore.set(DEFAULT_MENU_INDEX);
}

export function useAccountNotice(): string | null {
  return useStore(accountNoticeStore);
}

/** The selected index, falling back to Mi Cuenta when the selection is not visible. */
export function useSelectedMenuIndex(hasMissions: boolean): number {
  const selected = useStore(accountMenuStore);
  return visibleMenuItems(hasMissions).some((item) => item.index === selected) ? selected : DEFAULT_MENU_INDEX;
}
