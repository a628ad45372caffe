// Measures the JavaScript /login loads before it can be used: the entry chunk, the /login route
// chunk and everything they import statically, gzipped. Run after `npm run build`.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));

const files = new Set();
function collect(key) {
  const chunk = manifest[key];
  if (!chunk || files.has(chunk.file)) return;
  files.add(chunk.file);
  for (const imported of chunk.imports ?? []) collect(imported);
}
collect('index.html');
collect('src/app/routes/login.tsx');

let raw = 0;
let gzip = 0;
for (const file of files) {
  const body = readFileSync(join(dist, file));
  const zipped = gzipSync(body, { level: 9 }).length;
  raw += body.length;
  gzip += zipped;
  console.log(`${file.padEnd(44)} ${String(body.length).padStart(8)} B  ${String(zipped).padStart(7)} B gzip`);
}
console.log(`initial JS of /login: ${files.size} files, ${(raw / 1024).toFixed(1)} KiB, ${(gzip / 1024).toFixed(1)} KiB gzipped`);
