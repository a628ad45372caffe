/** Display formats of es-CL used across the portal. */

/** Pesos without decimals and with dots for thousands: 12345 → "$12.345". */
export function formatPesos(amount: number): string {
  const rounded = Math.round(amount);
  const digits = String(Math.abs(rounded)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${rounded < 0 ? '-' : ''}$${digits}`;
}

/** A rate in basis points as a member reads it: 300 → "3%", 80 → "0,8%". */
export function formatRate(rateBp: number): string {
  return `${(rateBp / 100).toLocaleString('es-CL', { maximumFractionDigits: 2 })}%`;
}

/** `iso` formatted in Chile's time zone with `options`; null when it is not a date. */
function formatInChile(iso: string, options: Intl.DateTimeFormatOptions): string | null {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  return new Intl.DateTimeFormat('es-CL', { ...options, timeZone: 'America/Santiago' }).format(date);
}

/** "21 de noviembre de 2026 a las 14:05" in Chile's time zone (24-hour clock). */
export function formatDateTime(iso: string): string | null {
  return formatInChile(iso, {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
}

/**
 * "10 de enero de 2026", the calendar day in Chile: the one date format members read everywhere
 * (lists, messages, the services' texts and emails, `formatDayMonth` for calendar dates).
 */
export function formatDate(iso: string): string | null {
  return formatInChile(iso, { day: 'numeric', month: 'long', year: 'numeric' });
}

/** Whole pesos as typed: only digits are kept, written with dots for thousands ("12.345"). */
export function formatAmountInput(raw: string): string {
  const digits = raw.replace(/\D/g, '').replace(/^0+(?=\d)/, '').slice(0, 12);
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
}

/**
 * What a member typed in a pesos field, read the Chilean way: `$`, spaces and dots for thousands
 * are accepted ("12.345", "$12.345"), and the text is re-written as the member types ("12345" →
 * "12.345"). A decimal is refused, not guessed: a comma (the Chilean decimal mark, "12.345,5")
 * or, when text was added, a point followed by one or two final digits ("12345.5"); the text is
 * then kept as typed with `decimal` true, so the member sees what they wrote and why it is
 * refused. Deleting characters only ever reformats, so "12.345" → "12.34" is not a decimal.
 */
export function readAmountInput(previous: string, raw: string): { text: string; decimal: boolean } {
  const typed = raw.replace(/[$\s]/g, '');
  const added = typed.length > previous.replace(/[$\s]/g, '').length;
  if (/,/.test(typed) || (added && /\.\d{1,2}$/.test(typed))) {
    return { text: typed.slice(0, 20), decimal: true };
  }
  return { text: formatAmountInput(typed), decimal: false };
}

/** The whole pesos of an amount field ("12.345" → 12345); 0 when empty. */
export function parseAmountInput(formatted: string): number {
  const digits = formatted.replace(/\D/g, '');
  return digits ? Number(digits) : 0;
}
