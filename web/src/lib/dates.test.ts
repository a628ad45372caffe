import { describe, expect, it } from 'vitest';

import { ageOn, chileToday, formatDayMonth, lastMonths, parseIsoDate, WEEK_DAY_NAMES } from './dates';
import { formatDate } from './format';

describe('Chile calendar dates', () => {
  it('takes the day in Santiago, not in UTC', () => {
    // 02:30 UTC on the 1st is still the evening of the 31st in Santiago (UTC-3 in summer).
    expect(chileToday(new Date('2027-01-01T02:30:00Z'))).toEqual({ year: 2026, month: 12, day: 31 });
    expect(chileToday(new Date('2026-11-21T15:00:00Z'))).toEqual({ year: 2026, month: 11, day: 21 });
  });

  it('lists months newest first across a year change', () => {
    expect(lastMonths({ year: 2026, month: 2 }, 4)).toEqual([
      { year: 2026, month: 2 },
      { year: 2026, month: 1 },
      { year: 2025, month: 12 },
      { year: 2025, month: 11 },
    ]);
    const history = lastMonths({ year: 2026, month: 11 }, 24);
    expect(history).toHaveLength(24);
    expect(history.at(-1)).toEqual({ year: 2024, month: 12 });
  });

  it('names the weekdays as the gateway numbers them, 1 = Lunes … 7 = Domingo', () => {
    expect(WEEK_DAY_NAMES[1 - 1]).toBe('Lunes');
    expect(WEEK_DAY_NAMES[7 - 1]).toBe('Domingo');
    // 20 November 2026 is a Friday, weekDay 5.
    expect(WEEK_DAY_NAMES[5 - 1]).toBe('Viernes');
    expect(WEEK_DAY_NAMES).toHaveLength(7);
  });

  it('reads only real ISO dates', () => {
    expect(parseIsoDate('1990-05-17')).toEqual({ year: 1990, month: 5, day: 17 });
    expect(parseIsoDate('2026-02-30')).toBeNull();
    expect(parseIsoDate('17-05-1990')).toBeNull();
    expect(parseIsoDate('1990-5-17')).toBeNull();
  });

  it('counts an age from the birthday on', () => {
    const birth = { year: 2008, month: 11, day: 21 };
    expect(ageOn(birth, { year: 2026, month: 11, day: 20 })).toBe(17);
    expect(ageOn(birth, { year: 2026, month: 11, day: 21 })).toBe(18);
  });
});

describe('formatDayMonth', () => {
  it('writes a calendar date in the one member format, always with the year', () => {
    expect(formatDayMonth('2026-12-31')).toBe('31 de diciembre de 2026');
    expect(formatDayMonth('2026-03-01')).toBe('1 de marzo de 2026');
    expect(formatDayMonth('2027-01-31')).toBe('31 de enero de 2027');
  });

  it('writes the same text as formatDate of an instant on that day in Chile', () => {
    expect(formatDayMonth('2026-11-20')).toBe(formatDate('2026-11-21T01:30:00Z'));
  });

  it('gives null for what is not a date', () => {
    expect(formatDayMonth('2026-02-30')).toBeNull();
    expect(formatDayMonth('')).toBeNull();
  });
});
