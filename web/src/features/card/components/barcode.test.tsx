import { render } from '@testing-library/react';
import { BitArray, Code128Reader, DecodeHintType } from '@zxing/library';
import { describe, expect, it } from 'vitest';

import { Barcode } from './barcode';

/** The drawn width in SVG units (JsBarcode's viewBox). */
function widthOf(svg: SVGSVGElement): number {
  return Number((svg.getAttribute('viewBox') ?? '').split(' ')[2]);
}

/**
 * Reads the drawn SVG as a scanner reads one line across the bars: each bar rect (inside the
 * group JsBarcode translates by the left quiet zone) paints its units black, and ZXing's Code 128
 * reader, an independent implementation, decodes the line.
 */
function scan(svg: SVGSVGElement): string {
  const line = new BitArray(widthOf(svg));
  for (const group of Array.from(svg.querySelectorAll('g'))) {
    const offset = Number(/translate\(([\d.]+)/.exec(group.getAttribute('transform') ?? '')?.[1] ?? 0);
    for (const bar of Array.from(group.querySelectorAll('rect'))) {
      const x = offset + Number(bar.getAttribute('x'));
      for (let unit = 0; unit < Number(bar.getAttribute('width')); unit += 1) line.set(x + unit);
    }
  }
  const hints = new Map([[DecodeHintType.ASSUME_GS1, false]]);
  return new Code128Reader().decodeRow(0, line, hints).getText();
}

describe('Barcode', () => {
  it.each(['123456789012', '900000000018', '100000000009'])(
    'draws a Code 128 that a scanner decodes back to the card number %s',
    (number) => {
      const { container } = render(<Barcode value={number} label="código" />);
      const svg = container.querySelector('svg');
      expect(svg).not.toBeNull();
      expect(scan(svg as SVGSVGElement)).toBe(number);
    },
  );

  it('keeps white quiet zones of ten modules on both sides of the bars', () => {
    const { container } = render(<Barcode value="123456789012" label="código" moduleWidth={2} />);
    const svg = container.querySelector('svg') as SVGSVGElement;
    const width = widthOf(svg);
    const group = svg.querySelector('g') as SVGGElement;
    const bars = Array.from(group.querySelectorAll('rect')).map((bar) => ({
      start: Number(bar.getAttribute('x')),
      end: Number(bar.getAttribute('x')) + Number(bar.getAttribute('width')),
    }));
    const offset = Number(/translate\(([\d.]+)/.exec(group.getAttribute('transform') ?? '')?.[1]);
    expect(offset + Math.min(...bars.map((bar) => bar.start))).toBeGreaterThanOrEqual(20);
    expect(width - (offset + Math.max(...bars.map((bar) => bar.end)))).toBeGreaterThanOrEqual(20);
  });

  it('is announced as an image named by its label', () => {
    const { getByRole } = render(<Barcode value="123456789012" label="Código de barras de tu número de socio" />);
    expect(getByRole('img', { name: 'Código de barras de tu número de socio' })).toBeInTheDocument();
  });
});
