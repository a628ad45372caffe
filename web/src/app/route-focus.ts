/**
 * What a screen reader hears after client-side navigation, once per navigation:
 *
 * - Focus moves to the page's main heading, so the reader announces the new page and keyboard
 *   users continue from its top (a full load starts there on its own). Within the account area
 *   the heading of the section just opened is used rather than the greeting, which names no
 *   section: the page marks its section with `data-route-heading-scope`. Lazy routes render
 *   their heading after a chunk arrives, so the heading is awaited.
 * - Only when focus could not go there (something else took it on purpose, such as the notice
 *   after a terms decision, or no heading came in time) does the polite live region announce the
 *   new document title instead. Announcing the title on every navigation as well would make the
 *   reader say the page's name twice (title, then the focused heading that names it), and the
 *   focused heading is the better of the two: it is where the reader continues.
 */
import { useEffect, useLayoutEffect, useRef } from 'react';
import { useLocation } from 'react-router-dom';

/** How long a route may take to show its heading before focus is left where it is. */
const HEADING_WAIT_MS = 5_000;

const SCOPE_SELECTOR = '[data-route-heading-scope]';

function pageHeading(): HTMLElement | null | 'waiting' {
  const scope = document.querySelector<HTMLElement>(SCOPE_SELECTOR);
  if (scope) return scope.querySelector<HTMLElement>('h1, h2') ?? 'waiting';
  return document.querySelector<HTMLElement>('main h1') ?? document.querySelector<HTMLElement>('h1');
}

export function focusMainHeading(startedFrom: Element | null): 'focused' | 'left' | 'waiting' {
  const active = document.activeElement;
  // Something took focus on purpose meanwhile (a field, a dialog, a notice): leave it there.
  if (active && active !== startedFrom && active !== document.body) return 'left';
  const heading = pageHeading();
  if (!heading || heading === 'waiting') return 'waiting';
  if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
  heading.focus();
  return 'focused';
}

/**
 * Moves focus to the new page's heading on client navigation; `onNotFocused` runs when it could
 * not (focus taken on purpose, or no heading within HEADING_WAIT_MS).
 */
export function useHeadingFocusOnNavigation(onNotFocused?: () => void): void {
  const { pathname } = useLocation();
  const shownPath = useRef<string | null>(null);
  const startedFrom = useRef<Element | null>(null);
  const notFocused = useRef(onNotFocused);

  useLayoutEffect(() => {
    notFocused.current = onNotFocused;
  });

  // Layout effects run before every passive one: this is what had focus before the new page's
  // own effects (a notice that focuses itself) could move it.
  useLayoutEffect(() => {
    startedFrom.current = document.activeElement;
  }, [pathname]);

  useEffect(() => {
    if (shownPath.current === null || shownPath.current === pathname) {
      // First load (or the same page again): focus stays where the browser put it.
      shownPath.current = pathname;
      return;
    }
    shownPath.current = pathname;
    const from = startedFrom.current;
    const first = focusMainHeading(from);
    if (first === 'left') notFocused.current?.();
    if (first !== 'waiting') return;
    const observer = new MutationObserver(() => {
      const outcome = focusMainHeading(from);
      if (outcome === 'waiting') return;
      observer.disconnect();
      window.clearTimeout(timer);
      if (outcome === 'left') notFocused.current?.();
    });
    observer.observe(document.body, { childList: true, subtree: true });
    const timer = window.setTimeout(() => {
      observer.disconnect();
      notFocused.current?.();
    }, HEADING_WAIT_MS);
    return () => {
      observer.disconnect();
      window.clearTimeout(timer);
    };
  }, [pathname]);
}
