/**
 * The portal's service worker, so Mi Tarjeta opens at the till without a network (#21). It keeps
 * the app's own files (the build's list, injected by vite-plugin-pwa) and nothing of the member:
 * the card's data is kept by the page itself (src/lib/personal-cache.ts), which purges it on
 * logout. Pages still come from the network first, so an online visit gets the gateway's page
 * and headers as before; only when the network fails is the kept index.html served, and the app
 * (its files cache-first, they are content-hashed) renders the route from there. The API is never
 * touched here.
 */
/// <reference lib="webworker" />
import { cleanupOutdatedCaches, matchPrecache, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

declare const self: ServiceWorkerGlobalScope;

// No directory index: "/" is a page like any other (network first), not the kept index.html.
precacheAndRoute(self.__WB_MANIFEST, { directoryIndex: '', cleanURLs: false });
cleanupOutdatedCaches();

registerRoute(
  new NavigationRoute(
    async ({ request }) => {
      try {
        return await fetch(request);
      } catch {
        return (await matchPrecache('/index.html')) ?? Response.error();
      }
    },
    { denylist: [/^\/api\//] },
  ),
);

// A new version takes over at once: its files are the ones the new pages ask for.
self.addEventListener('install', () => {
  void self.skipWaiting();
});
self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});
