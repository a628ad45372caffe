/**
 * Mi Club's logo, drawn for the club: the mark (a mandarina tile with a green "M" whose middle
 * stroke dips like a smile, and a point — the peso a member earns — above it) and the wordmark.
 * Inline SVG with a fixed width and height, so it causes no layout shift and needs no request;
 * its colours come from the brand tokens. `web/public/favicon.svg` is the same mark.
 */
import './logo.css';

type LogoProps = {
  /** `on-dark` over the header's green, `on-light` over a card or the page. */
  tone?: 'on-dark' | 'on-light';
  /** `mark` alone (e.g. the maintenance screen's large mark) or the mark and the wordmark. */
  variant?: 'full' | 'mark';
  /** Height in CSS pixels; the width follows the drawing's proportions. */
  height?: number;
};

export function LogoMark() {
  return (
    <>
      <rect className="logo__tile" x="0" y="0" width="40" height="40" rx="12" />
      <path
        className="logo__letter"
        d="M10.5 29V15.5c0-1 1.2-1.5 1.9-.8l6 7.2c.9 1 2.3 1 3.2 0l6-7.2c.7-.7 1.9-.2 1.9.8V29"
      />
      <circle className="logo__point" cx="20" cy="9.5" r="3" />
    </>
  );
}

export function Logo({ tone = 'on-dark', variant = 'full', height = 36 }: LogoProps) {
  const width = variant === 'full' ? Math.round((height * 132) / 40) : height;
  return (
    <svg
      className={`logo logo--${tone}`}
      viewBox={variant === 'full' ? '0 0 132 40' : '0 0 40 40'}
      width={width}
      height={height}
      aria-hidden="true"
      focusable="false"
    >
      <LogoMark />
      {variant === 'full' ? (
        <text className="logo__wordmark" x="49" y="28" textLength="83" lengthAdjust="spacingAndGlyphs">
          <tspan className="logo__wordmark-mi">mi</tspan>
          <tspan className="logo__wordmark-club" dx="5">club</tspan>
        </text>
      ) : null}
    </svg>
  );
}
