/**
 * What the app sent: method, path, query, headers and JSON body of every request the mock server
 * saw, in order, whichever handler answered it (setup-tests records them all). Tests assert on
 * the client's behaviour with it ("posted the RUT cleaned", "sent the CSRF header"); no handler
 * decides anything from it.
 */
export type SentRequest = {
  method: string;
  path: string;
  /** The query string without its `?`. */
  query: string;
  headers: Record<string, string>;
  body: unknown;
};

export const sent: SentRequest[] = [];

/**
 * Notes `request` in {@link sent} at once, in the order the app sent it; the body follows when its
 * clone is read, which the returned promise waits for.
 */
export async function record(request: Request): Promise<void> {
  const url = new URL(request.url);
  const entry: SentRequest = {
    method: request.method,
    path: url.pathname,
    query: url.search.replace(/^\?/, ''),
    headers: Object.fromEntries(request.headers.entries()),
    body: undefined,
  };
  sent.push(entry);
  const text = await request.clone().text();
  try {
    entry.body = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    entry.body = undefined;
  }
}

/** The requests sent to `path`, with `method` when given. */
export function sentTo(path: string, method?: string): SentRequest[] {
  return sent.filter((request) => request.path === path && (!method || request.method === method));
}

export function forgetSentRequests(): void {
  sent.length = 0;
}
