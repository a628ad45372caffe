import { describe, expect, it } from 'vitest';

import { caretAfterFormat, cleanRut, computeCheckDigit, formatRut, isValidRut } from './rut';

describe('RUT', () => {
  it('computes the check digit modulo 11', () => {
    expect(computeCheckDigit('12345678')).toBe('5');
    expect(computeCheckDigit('11111111')).toBe('1');
    expect(computeCheckDigit('22222222')).toBe('2');
    expect(computeCheckDigit('44444444')).toBe('4');
  });

  it('uses K for a remainder of 10 and 0 for 11', () => {
    expect(computeCheckDigit('10000013')).toBe('K');
    expect(computeCheckDigit('10000004')).toBe('0');
  });

  it('accepts a valid RUT in any common spelling and upper-cases k', () => {
    expect(isValidRut('12.345.678-5')).toBe(true);
    expect(isValidRut('123456785')).toBe(true);
    expect(isValidRut('10.000.013-k')).toBe(true);
    expect(cleanRut('10.000.013-k')).toBe('10000013K');
  });

  it('rejects a wrong check digit, a too short value and an all-zero body', () => {
    expect(isValidRut('12.345.678-9')).toBe(false);
    expect(isValidRut('1')).toBe(false);
    expect(isValidRut('0-0')).toBe(false);
    expect(isValidRut('')).toBe(false);
  });

  it('formats as it is typed', () => {
    const typed = '123456785';
    const steps = Array.from(typed, (_, i) => formatRut(typed.slice(0, i + 1)));
    expect(steps).toEqual([
      '1',
      '1-2',
      '12-3',
      '123-4',
      '1.234-5',
      '12.345-6',
      '123.456-7',
      '1.234.567-8',
      '12.345.678-5',
    ]);
  });

  it('drops anything that is not a digit and keeps K only as the check digit, upper-cased', () => {
    expect(formatRut('12.345.678-k')).toBe('12.345.678-K');
    expect(formatRut('1k2')).toBe('1-2');
    expect(formatRut(' 11111111-1 ')).toBe('11.111.111-1');
  });

  it('reads what members type the same way the services do: dots or not, hyphen or not, zero padding, k or K', () => {
    for (const typed of ['11.111.111-1', '11111111-1', '111111111', '011.111.111-1', '0111111111', ' 11 111 111 1 ']) {
      expect(formatRut(typed)).toBe('11.111.111-1');
      expect(isValidRut(typed)).toBe(true);
    }
    for (const typed of ['10.000.013-k', '10000013K', '010000013k']) {
      expect(formatRut(typed)).toBe('10.000.013-K');
      expect(isValidRut(typed)).toBe(true);
    }
    for (const malformed of ['11.111.111-2', '00.000.000-0', '5', 'K', '12.345.678']) {
      expect(isValidRut(malformed)).toBe(false);
    }
  });

  it('never grows beyond eight body digits and a check digit', () => {
    expect(formatRut('1234567890')).toBe('12.345.678-9');
  });

  it('keeps the caret after the same digit once dots and dash are inserted', () => {
    // "1234|" typed as the fourth digit becomes "123-4|".
    expect(caretAfterFormat('1234', 4, '123-4')).toBe(5);
    // Typing a 2 after "1" in "1|.234-5" (raw "12.234-5") keeps the caret after the 2.
    expect(caretAfterFormat('12.234-5', 2, '12.234-5')).toBe(2);
  });
});
