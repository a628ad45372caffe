/**
 * Focus on an element once it is shown: a step's heading when the member arrives from another
 * step (so a screen reader announces where they are), or the field a step starts at. The first
 * step of a page keeps the page's own focus, hence `enabled`.
 */
import { useEffect, useRef, type RefObject } from 'react';

/** A ref whose element takes focus when it first appears, if `enabled` was true then. */
export function useFocusOnShow<T extends HTMLElement>(enabled: boolean = true): RefObject<T | null> {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (enabled) ref.current?.focus();
    // Only when the element appears.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return ref;
}
