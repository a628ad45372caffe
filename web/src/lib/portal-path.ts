/**
 * Whether a link or redirect stays on this site, judged where the browser resolves it. A
 * leading "/" is not enough: URL parsing reads "\" as "/" and drops tabs and newlines, so
 * "/\evil.example" and "/\t/evil.example" are both "//evil.example", another host.
 */
export function isPortalPath(url: string): boolean {
  if (!url.startsWith('/') || url.startsWith('//') || url.includes('\\')) return false;
  try {
    return new URL(url, window.location.origin).origin === window.location.origin;
  } catch {
    return false;
  }
}
