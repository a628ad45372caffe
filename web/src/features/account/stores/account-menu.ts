/**
 * The account menu (spec section 2) and its selection. Indexes are the spec's, not positions.
 * The selection lives in the URL, its one source of truth: each entry has its own address under
 * /mi-club, so Back, Forward, reload and a shared link all keep the section, and the index is
 * derived from the path wherever it is needed.
 */
import { createStore, useStore } from '@/lib/store';

export type MenuIndex = 0 | 1 | 2 | 3 | 4;

export type AccountMenuItem = {
  index: MenuIndex;
  label: string;
  /** The section's address; Mi Cuenta is /mi-club itself. */
  path: string;
  /** Shown only when the member has missions. */
  requiresMissions?: boolean;
};

export const ACCOUNT_HOME_PATH = '/mi-club';

// The spec's menu names stay here rather than in ../messages.ts: this store is part of the
// initial bundle, and importing the feature's copy would pull all of it in with it.
export const ACCOUNT_MENU: readonly AccountMenuItem[] = [
  { index: 0, label: 'Mi Cuenta', path: ACCOUNT_HOME_PATH },
  { index: 1, label: 'Mis Datos', path: '/mi-club/mis-datos' },
  { index: 2, label: 'Mis Movimientos', path: '/mi-club/movimientos' },
  { index: 3, label: 'Términos y Condiciones', path: '/mi-club/terminos' },
  { index: 4, label: 'Misiones', path: '/mi-club/misiones', requiresMissions: true },
];

export const DEFAULT_MENU_INDEX: MenuIndex = 0;

export function visibleMenuItems(hasMissions: boolean): AccountMenuItem[] {
  return ACCOUNT_MENU.filter((item) => !item.requiresMissions || hasMissions);
}

/** `pathname` without trailing slashes ("/" stays "/"). */
export function normalizePath(pathname: string): string {
  return pathname.length > 1 ? pathname.replace(/\/+$/, '') || '/' : pathname;
}

/**
 * The menu entry a path names, or null for any other path (an unknown /mi-club/x included).
 * Whether the member may see it (Misiones) is `sectionFor`'s question.
 */
export function menuItemOfPath(pathname: string): AccountMenuItem | null {
  const path = normalizePath(pathname);
  return ACCOUNT_MENU.find((item) => item.path === path) ?? null;
}

/** The address of the entry with this index (Mi Cuenta's for an unknown index). */
export function menuPathOf(index: number): string {
  return ACCOUNT_MENU.find((item) => item.index === index)?.path ?? ACCOUNT_HOME_PATH;
}

/**
 * What /mi-club/* shows for a path: the entry, a redirect to Mi Cuenta (Misiones for a member
 * without missions: the entry exists, just not for them), or not found (an address that never
 * existed).
 */
export type SectionAnswer =
  | { kind: 'section'; item: AccountMenuItem }
  | { kind: 'redirect'; to: string }
  | { kind: 'not-found' };

export function sectionFor(pathname: string, hasMissions: boolean): SectionAnswer {
  const item = menuItemOfPath(pathname);
  if (!item) return { kind: 'not-found' };
  if (item.requiresMissions && !hasMissions) return { kind: 'redirect', to: ACCOUNT_HOME_PATH };
  return { kind: 'section', item };
}

/**
 * A message for the member shown above one section (`index`) until the member goes to another
 * one: after the terms are updated the menu goes to Mi Cuenta and says why.
 */
export type AccountNotice = { index: MenuIndex; message: string };

export const accountNoticeStore = createStore<AccountNotice | null>(null);

/**
 * Leaves `message` above section `index`. Call it after navigating there: a notice for another
 * section than the one on screen is cleared as stale.
 */
export function setAccountNotice(index: MenuIndex, message: string): void {
  accountNoticeStore.set({ index, message });
}

export function clearAccountNotice(): void {
  accountNoticeStore.set(null);
}

/** Part of logout (spec section 4); the menu itself goes back to Mi Cuenta with the URL. */
export function resetAccountMenu(): void {
  clearAccountNotice();
}

export function useAccountNotice(): AccountNotice | null {
  return useStore(accountNoticeStore);
}
