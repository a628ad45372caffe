import { describe, expect, it } from 'vitest';

import { ageOn, chileToday, formatDayMonth, lastMonths, parseIsoDate } from './dates';

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
  const now = new Date('2026-11-21T15:00:00Z');

  it('writes a day of the current year without the year', () => {
    expect(formatDayMonth('2026-12-31', now)).toBe('31 de diciembre');
    expect(formatDayMonth('2026-03-01', now)).toBe('1 de marzo');
  });

  it('adds the year when it is another one', () => {
    expect(formatDayMonth('2027-01-31', now)).toBe('31 de enero de 2027');
  });

  it('counts the year in Chile, not in UTC', () => {
    // 03:00 UTC on January 1st is still December 31st in Santiago.
    expect(formatDayMonth('2026-12-31', new Date('2027-01-01T02:00:00Z'))).toBe('31 de diciembre');
  });

  it('gives null for what is not a date', () => {
    expect(formatDayMonth('2026-02-30', now)).toBeNull();
    expect(formatDayMonth('', now)).toBeNull();
  });
});
