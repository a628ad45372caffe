/**
 * Chilean RUT: a body of digits and a check digit computed modulo 11 ("K" for 10, "0" for 11),
 * displayed as `12.345.678-5`.
 */

/** Longest cleaned RUT: 8 digits of body plus the check digit (bodies reach 99.999.999). */
export const RUT_MAX_LENGTH = 9;

/**
 * Keeps digits and a final K, upper-cased, without the zeros that pad a body (the services
 * accept them too): "12.345.678-k" → "12345678K", "012.345.678-5" → "123456785".
 */
export function cleanRut(value: string): string {
  const chars = value
    .toUpperCase()
    .replace(/[^0-9K]/g, '')
    .replace(/^0+/, '');
  // A K is only meaningful as the check digit, so any K before the last character is dropped.
  const body = chars.slice(0, -1).replace(/K/g, '');
  return (body + chars.slice(-1)).slice(0, RUT_MAX_LENGTH);
}

/** Check digit for a body of digits, modulo 11 with weights 2..7 from the right. */
export function computeCheckDigit(body: string): string {
  let sum = 0;
  let weight = 2;
  for (let i = body.length - 1; i >= 0; i -= 1) {
    sum += Number(body[i]) * weight;
    weight = weight === 7 ? 2 : weight + 1;
  }
  const result = 11 - (sum % 11);
  if (result === 11) return '0';
  if (result === 10) return 'K';
  return String(result);
}

export function isValidRut(value: string): boolean {
  const clean = cleanRut(value);
  if (clean.length < 2) return false;
  const body = clean.slice(0, -1);
  if (!/^\d+$/.test(body) || Number(body) === 0) return false;
  return computeCheckDigit(body) === clean.slice(-1);
}

/** Formats whatever has been typed so far: "123456785" → "12.345.678-5", "1234" → "123-4". */
export function formatRut(value: string): string {
  const clean = cleanRut(value);
  if (clean.length <= 1) return clean;
  const body = clean.slice(0, -1).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${body}-${clean.slice(-1)}`;
}

/**
 * Where the caret belongs after reformatting: after the same number of significant characters
 * (digits or K) that preceded it in the raw input.
 */
export function caretAfterFormat(raw: string, caret: number, formatted: string): number {
  const significantBefore = cleanRut(raw.slice(0, caret)).length;
  if (significantBefore === 0) return 0;
  let seen = 0;
  for (let i = 0; i < formatted.length; i += 1) {
    if (/[0-9K]/.test(formatted[i] ?? '')) seen += 1;
    if (seen === significantBefore) return i + 1;
  }
  return formatted.length;
}
