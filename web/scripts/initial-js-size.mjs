// Measures the JavaScript /login loads before it can be used: the entry chunk, the /login route
// chunk and everything they import statically, gzipped. Run after `npm run build`; `npm test`'s
// CI step runs it as the budget: it fails above LOGIN_JS_BUDGET_KIB gzipped, or when /login
// would load what only the member card needs (the barcode, the service worker's registration).
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

/** /login's initial JavaScript, gzipped (107.2 KiB when the card arrived, #21). */
const LOGIN_JS_BUDGET_KIB = 112;
/** Text that only the card's chunk may carry: JsBarcode's format table, the worker's registration. */
const CARD_ONLY = ['CODE128', 'serviceWorker.register', 'workbox'];

const problems = [];
let raw = 0;
let gzip = 0;
for (const file of files) {
  const body = readFileSync(join(dist, file));
  const text = body.toString('utf8');
  for (const marker of CARD_ONLY) {
    if (text.includes(marker)) problems.push(`${file} carries "${marker}", which only the member card needs`);
  }
  const zipped = gzipSync(body, { level: 9 }).length;
  raw += body.length;
  gzip += zipped;
  console.log(`${file.padEnd(44)} ${String(body.length).padStart(8)} B  ${String(zipped).padStart(7)} B gzip`);
}
console.log(`initial JS of /login: ${files.size} files, ${(raw / 1024).toFixed(1)} KiB, ${(gzip / 1024).toFixed(1)} KiB gzipped`);
if (gzip / 1024 > LOGIN_JS_BUDGET_KIB) {
  problems.push(`/login loads ${(gzip / 1024).toFixed(1)} KiB gzipped, over its budget of ${LOGIN_JS_BUDGET_KIB} KiB`);
}
for (const problem of problems) console.error(problem);
process.exit(problems.length > 0 ? 1 : 0);
