/**
 * The account menu (spec section 2) and its selection. Indexes are the spec's, not positions.
 * The selection lives in the URL, its one source of truth: each entry has its own address under
 * /mi-club, so Back, Forward, reload and a shared link all keep the section, and the index is
 * derived from the path wherever it is needed.
 *
 * Mi Tarjeta [5] (#21) is not the spec's: it comes after the spec's five, so 0-4 keep their
 * meaning in the analytics events (`menu_<index>`).
 */
export type MenuIndex = 0 | 1 | 2 | 3 | 4 | 5;

export type AccountMenuItem = {
  index: MenuIndex;
  label: string;
  /** The section's address; Mi Cuenta is /mi-club itself. */
  path: string;
  /** Shown only when the member has missions. */
  requiresMissions?: boolean;
  /** Pages inside the section: their address selects the entry too (the section shows them). */
  subpaths?: readonly string[];
};

export const ACCOUNT_HOME_PATH = '/mi-club';

/** Actividad de la cuenta: a page of Mis Datos [1], which stays the selected entry there. */
export const ACCOUNT_ACTIVITY_PATH = '/mi-club/mis-datos/actividad';

/** Mis Movimientos' address; one movement's explanation is `${MOVEMENTS_PATH}/{id}` (#21). */
const MOVEMENTS_PATH = '/mi-club/movimientos';

/** The member card shown at the till; it opens offline once opened (#21). */
export const MEMBER_CARD_PATH = '/mi-club/tarjeta';

// The spec's menu names stay here rather than in ../messages.ts: this store is part of the
// initial bundle, and importing the feature's copy would pull all of it in with it.
export const ACCOUNT_MENU: readonly AccountMenuItem[] = [
  { index: 0, label: 'Mi Cuenta', path: ACCOUNT_HOME_PATH },
  { index: 1, label: 'Mis Datos', path: '/mi-club/mis-datos', subpaths: [ACCOUNT_ACTIVITY_PATH] },
  { index: 2, label: 'Mis Movimientos', path: MOVEMENTS_PATH },
  { index: 3, label: 'Términos y Condiciones', path: '/mi-club/terminos' },
  { index: 4, label: 'Misiones', path: '/mi-club/misiones', requiresMissions: true },
  { index: 5, label: 'Mi Tarjeta', path: MEMBER_CARD_PATH },
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
 * The movement id of an explanation's address (`/mi-club/movimientos/{id}`, one segment,
 * percent-decoded), or null for any other path. What the id is worth is the gateway's question.
 */
export function movementIdOfPath(pathname: string): string | null {
  const path = normalizePath(pathname);
  if (!path.startsWith(`${MOVEMENTS_PATH}/`)) return null;
  const segment = path.slice(MOVEMENTS_PATH.length + 1);
  if (!segment || segment.includes('/')) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    // Not even text (`%FF`): no movement has that id.
    return segment;
  }
}

/**
 * The menu entry a path names, or null for any other path (an unknown /mi-club/x included). A
 * movement's explanation is part of Mis Movimientos. Whether the member may see it (Misiones)
 * is `sectionFor`'s question.
 */
export function menuItemOfPath(pathname: string): AccountMenuItem | null {
  const path = movementIdOfPath(pathname) === null ? normalizePath(pathname) : MOVEMENTS_PATH;
  return ACCOUNT_MENU.find((item) => item.path === path || item.subpaths?.includes(path)) ?? null;
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
 * A message for the member shown above a section until the member goes elsewhere: after the terms
 * are updated the menu goes to Mi Cuenta and says why. It travels in the history entry's state
 * (`navigate(path, { state: withAccountNotice(message) })`), so it belongs to that one visit: the
 * menu, Back or any other navigation leaves it behind, with nothing to clear.
 */
export function withAccountNotice(message: string): { accountNotice: string } {
  return { accountNotice: message };
}

/** The notice in a history entry's state, if any (the state may hold anything: it is checked). */
export function accountNoticeOf(state: unknown): string | null {
  if (typeof state !== 'object' || state === null || !('accountNotice' in state)) return null;
  const notice = (state as { accountNotice: unknown }).accountNotice;
  return typeof notice === 'string' && notice.length > 0 ? notice : null;
}
