/** The months Mis Movimientos offers: the current one in Chile and the 23 before it. */
import { lastMonths, type YearMonth } from '@/lib/dates';

export const HISTORY_MONTHS = 24;

export type MonthChoices = {
  /** Newest first. */
  years: number[];
  /** The months (1-12, ascending) offered for a year. */
  monthsOf: (year: number) => number[];
};

export function monthChoices(current: YearMonth): MonthChoices {
  const months = lastMonths(current, HISTORY_MONTHS);
  const years = [...new Set(months.map((m) => m.year))];
  return {
    years,
    monthsOf: (year) =>
      months
        .filter((m) => m.year === year)
        .map((m) => m.month)
        .sort((a, b) => a - b),
  };
}

/** `wanted` itself when offered, else the offered month of that year nearest to it. */
export function nearestChoice(wanted: YearMonth, choices: MonthChoices): YearMonth {
  const months = choices.monthsOf(wanted.year);
  if (months.length === 0) return wanted;
  if (months.includes(wanted.month)) return wanted;
  const nearest = months.reduce((best, month) =>
    Math.abs(month - wanted.month) < Math.abs(best - wanted.month) ? month : best,
  );
  return { year: wanted.year, month: nearest };
}
