/**
 * What a portal printed when it ended by itself in the middle of a test file. It goes to the
 * run's log at once, and to a file in `MICLUB_E2E_INCIDENTS` that scripts/test prints after both
 * suites' logs: CI keeps only the end of the output, where the failure summary is, and the
 * cause of a bare ERR_CONNECTION_REFUSED is otherwise hundreds of lines above it.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

/** How much of the output an incident keeps: the end, where the cause is. */
const KEPT_LINES = 80;

/** Synchronous: it runs in a child's `close` handler, and the file may end with the worker. */
export function reportEndedByItself(what: string, code: number | null, signal: string | null, output: string) {
  // The backtrace of the error `main` returns says nothing the line before it does not.
  const [told] = output.split('\nStack backtrace:');
  const kept = (told ?? output).trimEnd().split('\n').slice(-KEPT_LINES).join('\n');
  const when = new Date().toISOString();
  const text = `${what} ended by itself at ${when} (code ${code}, signal ${signal}); the end of its output:\n${kept}\n`;
  console.error(text);
  const folder = process.env.MICLUB_E2E_INCIDENTS;
  if (folder) appendFileSync(join(folder, `${process.pid}.log`), `${text}\n`);
}
