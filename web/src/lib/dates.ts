/**
 * Calendar dates as Chile lives them: the portal's months (movements) and ages (birth date) are
 * counted in America/Santiago, whatever the browser's own time zone.
 */

export const CHILE_TIME_ZONE = 'America/Santiago';

export type CalendarDate = { year: number; month: number; day: number };
export type YearMonth = { year: number; month: number };

/** Month names for selectors, January first. */
export const MONTH_NAMES = [
  'Enero',
  'Febrero',
  'Marzo',
  'Abril',
  'Mayo',
  'Junio',
  'Julio',
  'Agosto',
  'Septiembre',
  'Octubre',
  'Noviembre',
  'Diciembre',
] as const;

/**
 * Weekday names for labels and selectors, Monday first: the gateway's `weekDay` (simulator and
 * movement detail alike) is 1 = Lunes … 7 = Domingo, so `WEEK_DAY_NAMES[weekDay - 1]`.
 */
export const WEEK_DAY_NAMES = ['Lunes', 'Martes', 'Miércoles', 'Jueves', 'Viernes', 'Sábado', 'Domingo'] as const;

/** The day it is in Chile at `now`. */
export function chileToday(now: Date = new Date()): CalendarDate {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: CHILE_TIME_ZONE,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  }).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return { year: part('year'), month: part('month'), day: part('day') };
}

/** `count` calendar months ending with the one of `from`, newest first. */
export function lastMonths(from: YearMonth, count: number): YearMonth[] {
  const months: YearMonth[] = [];
  for (let i = 0; i < count; i += 1) {
    const index = from.year * 12 + (from.month - 1) - i;
    months.push({ year: Math.floor(index / 12), month: (index % 12) + 1 });
  }
  return months;
}

/** Reads a strict ISO date `YYYY-MM-DD` that exists in the calendar; null otherwise. */
export function parseIsoDate(value: string): CalendarDate | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return { year, month, day };
}

/** Whole years from `birth` to `today` (a birthday counts from its day). */
export function ageOn(birth: CalendarDate, today: CalendarDate): number {
  const hadBirthday = today.month > birth.month || (today.month === birth.month && today.day >= birth.day);
  return today.year - birth.year - (hadBirthday ? 0 : 1);
}

const MONTHS_LOWER = MONTH_NAMES.map((name) => name.toLowerCase());

/**
 * A calendar date `YYYY-MM-DD` in the portal's one date format for members, the same as
 * `formatDate` of an instant and the services' messages: "31 de diciembre de 2026", always with
 * the year. Null when not a date.
 */
export function formatDayMonth(isoDate: string): string | null {
  const date = parseIsoDate(isoDate.slice(0, 10));
  if (!date) return null;
  return `${date.day} de ${MONTHS_LOWER[date.month - 1]} de ${date.year}`;
}
