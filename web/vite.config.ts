import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

/**
 * Writes `.gz` and `.br` next to each text asset of dist/, so a server that serves precompressed
 * files (tower-http's `ServeDir::precompressed_gzip/br`) sends them without compressing per request.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
  return {
    name: 'miclub-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    closeBundle() {
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json)$/.test(file) || file.includes('/.vite/')) continue;
        const body = readFileSync(file);
        if (body.length < 1024) continue;
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
      }
    },
  };
}

/**
 * The installable app (#21): the web app manifest (linked from index.html) and the service worker
 * built from sw/sw.ts with the build's file list injected. The worker is registered by Mi Tarjeta
 * only (src/features/card/utils/offline.ts), so nothing of it is in the /login bundle.
 */
function installableApp() {
  return VitePWA({
    strategies: 'injectManifest',
    srcDir: 'sw',
    filename: 'sw.ts',
    injectRegister: false,
    manifest: {
      // The app's identity, fixed: the browser's default (start_url) would make a later change of
      // start_url a new app beside the one already installed. Equal to that default, so the
      // installs made before it stay the same app.
      id: '/mi-club',
      name: 'Mi Club',
      short_name: 'Mi Club',
      description: 'Revisa tu saldo y muestra tu tarjeta Mi Club en la caja.',
      lang: 'es-CL',
      start_url: '/mi-club',
      scope: '/',
      display: 'standalone',
      theme_color: '#0d6b57',
      background_color: '#f6f4ef',
      icons: [
        { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png' },
        { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png' },
        { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
      ],
      shortcuts: [{ name: 'Mi Tarjeta', url: '/mi-club/tarjeta', icons: [{ src: '/icons/icon-192.png', sizes: '192x192' }] }],
    },
    injectManifest: {
      // The app's code, styles, page and icons; not the content images (banners, partners' logos).
      globPatterns: ['**/*.{js,css,html}', 'favicon.svg', 'logo.svg', 'icons/*.png'],
    },
  });
}

// The gateway serves web/dist; in development Vite proxies /api to a running standalone binary.
export default defineConfig({
  plugins: [react(), installableApp(), precompress()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    proxy: {
      '/api': { target: process.env.MICLUB_API ?? 'http://127.0.0.1:8080', changeOrigin: false },
    },
  },
  build: {
    target: 'es2022',
    sourcemap: false,
    // dist/.vite/manifest.json lets scripts/initial-js-size.mjs measure what /login loads.
    manifest: true,
  },
});
