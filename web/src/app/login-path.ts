/**
 * Where a page that needs a session sends a member without one: /login, with the way back to
 * the page they were on. Mi Cuenta needs none, since /login goes there by default.
 */
import { ACCOUNT_HOME_PATH, normalizePath } from '@/features/account/stores/account-menu';

/** /login coming back to `here` (a path with its query string) after logging in. */
export function loginPathBackTo(here: string): string {
  return normalizePath(here) === ACCOUNT_HOME_PATH ? '/login' : `/login?redirect=${encodeURIComponent(here)}`;
}
