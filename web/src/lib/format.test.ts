import { describe, expect, it } from 'vitest';

import {
  formatAmountInput,
  formatDate,
  formatDateTime,
  formatPesos,
  formatRate,
  parseAmountInput,
  readAmountInput,
} from './format';

describe('formatRate', () => {
  it('writes basis points as es-CL percentages', () => {
    expect(formatRate(300)).toBe('3%');
    expect(formatRate(80)).toBe('0,8%');
    expect(formatRate(90)).toBe('0,9%');
  });
});

describe('formatPesos', () => {
  it('writes pesos with a dollar sign, dots for thousands and no decimals', () => {
    expect(formatPesos(12345)).toBe('$12.345');
    expect(formatPesos(1234567)).toBe('$1.234.567');
    expect(formatPesos(1000)).toBe('$1.000');
  });

  it('writes small amounts and zero without separators', () => {
    expect(formatPesos(0)).toBe('$0');
    expect(formatPesos(999)).toBe('$999');
  });

  it('rounds away fractions of a peso', () => {
    expect(formatPesos(12345.6)).toBe('$12.346');
    expect(formatPesos(12345.4)).toBe('$12.345');
  });

  it('puts the minus sign before the dollar sign', () => {
    expect(formatPesos(-2500)).toBe('-$2.500');
  });
});

describe('formatDateTime', () => {
  it('writes a date and 24-hour time in Chile', () => {
    // ICU versions differ in the joiner (", " or " a las ").
    expect(formatDateTime('2026-11-20T15:00:00Z')).toMatch(/^20 de noviembre de 2026(,| a las) 12:00$/);
  });

  it('answers null for what is not a date', () => {
    expect(formatDateTime('mañana')).toBeNull();
  });
});

describe('formatDate', () => {
  it('writes the calendar day in Chile', () => {
    expect(formatDate('2026-01-10T12:00:00Z')).toBe('10 de enero de 2026');
    // Late evening in Santiago is already the next day in UTC.
    expect(formatDate('2026-11-21T01:30:00Z')).toBe('20 de noviembre de 2026');
  });

  it('answers null for what is not a date', () => {
    expect(formatDate('nunca')).toBeNull();
    expect(formatDate('')).toBeNull();
  });
});

describe('amount fields', () => {
  it('keep only digits, without leading zeros, with dots for thousands', () => {
    expect(formatAmountInput('12345')).toBe('12.345');
    expect(formatAmountInput('$1.234.567')).toBe('1.234.567');
    expect(formatAmountInput('-12,5e3')).toBe('1.253');
    expect(formatAmountInput('007')).toBe('7');
    expect(formatAmountInput('0')).toBe('0');
    expect(formatAmountInput('abc')).toBe('');
  });

  it('read back whole pesos, 0 when empty', () => {
    expect(parseAmountInput('12.345')).toBe(12345);
    expect(parseAmountInput('')).toBe(0);
    expect(parseAmountInput(formatAmountInput('10000000'))).toBe(10_000_000);
  });
});

describe('readAmountInput', () => {
  it('accepts the Chilean formats members type and writes thousands with dots', () => {
    expect(readAmountInput('', '12345')).toEqual({ text: '12.345', decimal: false });
    expect(readAmountInput('', '12.345')).toEqual({ text: '12.345', decimal: false });
    expect(readAmountInput('', '$12.345')).toEqual({ text: '12.345', decimal: false });
    expect(readAmountInput('', '$ 1.234.567')).toEqual({ text: '1.234.567', decimal: false });
  });

  it('refuses a decimal comma or a decimal point instead of reading it as more pesos', () => {
    expect(readAmountInput('12.345', '12.345,5')).toEqual({ text: '12.345,5', decimal: true });
    expect(readAmountInput('', '12,5')).toEqual({ text: '12,5', decimal: true });
    expect(readAmountInput('1234', '12345.5')).toEqual({ text: '12345.5', decimal: true });
    expect(readAmountInput('', '$99.99')).toEqual({ text: '99.99', decimal: true });
  });

  it('reformats a deletion, which is never a decimal', () => {
    expect(readAmountInput('12.345', '12.34')).toEqual({ text: '1.234', decimal: false });
    expect(readAmountInput('12.345,5', '12.3455')).toEqual({ text: '123.455', decimal: false });
  });
});
