import JsBarcode from 'jsbarcode';
import { useLayoutEffect, useRef } from 'react';

type BarcodeProps = {
  /** Digits only; an even count is drawn in Code 128's compact digit-pair set (C). */
  value: string;
  label: string;
  /** Width of the narrowest bar in SVG units; the SVG scales to its container. */
  moduleWidth?: number;
};

/**
 * A Code 128 barcode drawn as SVG by JsBarcode, black on white with the quiet zones a scanner
 * needs (10 modules each side). The digits are written by the card, not under the bars.
 */
export function Barcode({ value, label, moduleWidth = 2 }: BarcodeProps) {
  const ref = useRef<SVGSVGElement>(null);
  useLayoutEffect(() => {
    if (!ref.current) return;
    JsBarcode(ref.current, value, {
      format: 'CODE128',
      width: moduleWidth,
      height: 80,
      margin: 10 * moduleWidth,
      displayValue: false,
      background: '#ffffff',
      lineColor: '#000000',
    });
    // JsBarcode sets a viewBox too: without its fixed pixel size the code scales with the card.
    ref.current.removeAttribute('width');
    ref.current.removeAttribute('height');
  }, [value, moduleWidth]);
  return <svg ref={ref} className="barcode" role="img" aria-label={label} data-value={value} />;
}
