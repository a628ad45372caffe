/**
 * Mis Movimientos' month and page in the query string (`?mes=2026-11&pagina=2`), so Back, Forward,
 * reload and a copied link keep them. What the address says is only a wish: a month the section
 * does not offer or a malformed value falls back to the current month, and a page that is not a
 * whole number from 1 to MAX_PAGE to the first, never to an error.
 */
import type { YearMonth } from '@/lib/dates';

import { type MonthChoices } from './month-choices';

export const MONTH_PARAM = 'mes';
export const PAGE_PARAM = 'pagina';

/** The gateway's highest page (docs/openapi.json, GET /api/movements). */
export const MAX_PAGE = 10_000;

export type MovementsQuery = { month: YearMonth; page: number };

function parseMonth(value: string | null, choices: MonthChoices): YearMonth | null {
  const match = value ? /^(\d{4})-(\d{2})$/.exec(value) : null;
  if (!match) return null;
  const year = Number(match[1]);
  const month = Number(match[2]);
  return choices.monthsOf(year).includes(month) ? { year, month } : null;
}

function parsePage(value: string | null): number | null {
  if (!value || !/^\d{1,5}$/.test(value)) return null;
  const page = Number(value);
  return page >= 1 && page <= MAX_PAGE ? page : null;
}

export function parseMovementsQuery(params: URLSearchParams, current: YearMonth, choices: MonthChoices): MovementsQuery {
  return {
    month: parseMonth(params.get(MONTH_PARAM), choices) ?? current,
    page: parsePage(params.get(PAGE_PARAM)) ?? 1,
  };
}

function monthValue({ year, month }: YearMonth): string {
  return `${year}-${String(month).padStart(2, '0')}`;
}

/**
 * The query string for `query`: the current month and the first page are left out, so the
 * section's plain address is its default.
 */
export function movementsSearchParams(query: MovementsQuery, current: YearMonth): URLSearchParams {
  const params = new URLSearchParams();
  if (query.month.year !== current.year || query.month.month !== current.month) {
    params.set(MONTH_PARAM, monthValue(query.month));
  }
  if (query.page > 1) params.set(PAGE_PARAM, String(query.page));
  return params;
}
