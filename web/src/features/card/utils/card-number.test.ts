import { describe, expect, it } from 'vitest';

import { formatCardNumber } from './card-number';

describe('formatCardNumber', () => {
  it('groups a card number in threes of four digits', () => {
    expect(formatCardNumber('123456789012')).toBe('1234 5678 9012');
  });

  it('leaves anything that is not a card number as it came', () => {
    expect(formatCardNumber('12345')).toBe('12345');
    expect(formatCardNumber('12345678901a')).toBe('12345678901a');
  });
});
