/**
 * Moves focus to the page's main heading after client-side navigation, so a screen reader
 * announces the new page and keyboard users continue from its top (a full load starts there on
 * its own). Lazy routes render their heading after a chunk arrives, so the heading is awaited.
 */
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router-dom';

/** How long a route may take to show its heading before focus is left where it is. */
const HEADING_WAIT_MS = 5_000;

export function focusMainHeading(startedFrom: Element | null): 'focused' | 'left' | 'waiting' {
  const active = document.activeElement;
  // Something took focus on purpose meanwhile (a field, a dialog): leave it there.
  if (active && active !== startedFrom && active !== document.body) return 'left';
  const heading = document.querySelector<HTMLElement>('main h1') ?? document.querySelector<HTMLElement>('h1');
  if (!heading) return 'waiting';
  if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
  heading.focus();
  return 'focused';
}

export function useHeadingFocusOnNavigation(): void {
  const { pathname } = useLocation();
  const shownPath = useRef<string | null>(null);

  useEffect(() => {
    if (shownPath.current === null || shownPath.current === pathname) {
      // First load (or the same page again): focus stays where the browser put it.
      shownPath.current = pathname;
      return;
    }
    shownPath.current = pathname;
    const startedFrom = document.activeElement;
    if (focusMainHeading(startedFrom) !== 'waiting') return;
    const observer = new MutationObserver(() => {
      if (focusMainHeading(startedFrom) !== 'waiting') observer.disconnect();
    });
    observer.observe(document.body, { childList: true, subtree: true });
    const timer = window.setTimeout(() => observer.disconnect(), HEADING_WAIT_MS);
    return () => {
      observer.disconnect();
      window.clearTimeout(timer);
    };
  }, [pathname]);
}
