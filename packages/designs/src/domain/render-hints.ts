import type { Display, RenderVariant } from './records.js';

/**
 * Render hints derived from the resolved design (001 §2.1 "derived render hints"; fields ours): the colours and
 * images to draw with (the best matching variant first, then the display), a text colour derived from the
 * background's relative luminance (WCAG 2.x) when none is given, the writing direction of the locale, and the
 * claims to show first.
 */
export interface RenderHints {
  renderTarget: string | null;
  locale: string | null;
  direction: 'ltr' | 'rtl';
  backgroundColor: string | null;
  textColor: string | null;
  textColorDerived: boolean;
  logoUri: string | null;
  logoAltText: string | null;
  backgroundImageUri: string | null;
  templateUri: string | null;
  primaryClaims: string[];
}

const RTL = new Set(['ar', 'arc', 'dv', 'fa', 'ha', 'he', 'khw', 'ks', 'ku', 'ps', 'sd', 'ur', 'yi']);

/** WCAG 2.1 relative luminance of `#RRGGBB`. */
export function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** Black or white, whichever contrasts more with the background (WCAG contrast ratio). */
export const contrastingText = (background: string) =>
  (luminance(background) + 0.05) / 0.05 >= 1.05 / (luminance(background) + 0.05) ? '#000000' : '#FFFFFF';

export function deriveRenderHints(input: {
  renderTarget: string | null;
  locale: string | null;
  display: Display | null;
  variant: RenderVariant | null;
  claimOrder: string[];
}): RenderHints {
  const { display, variant } = input;
  const backgroundColor = variant?.backgroundColor ?? display?.backgroundColor ?? null;
  const explicitText = variant?.textColor ?? display?.textColor ?? null;
  const logo = variant?.logo ?? display?.logo ?? null;
  const language = input.locale?.split('-')[0]?.toLowerCase() ?? '';
  return {
    renderTarget: input.renderTarget,
    locale: input.locale,
    direction: RTL.has(language) ? 'rtl' : 'ltr',
    backgroundColor,
    textColor: explicitText ?? (backgroundColor ? contrastingText(backgroundColor) : null),
    textColorDerived: explicitText === null && backgroundColor !== null,
    logoUri: logo?.uri ?? null,
    logoAltText: logo?.altText ?? null,
    backgroundImageUri: variant?.backgroundImage?.uri ?? display?.backgroundImage?.uri ?? null,
    templateUri: variant?.templateUri ?? null,
    primaryClaims: (variant?.claimPaths?.length ? variant.claimPaths : input.claimOrder).slice(0, 3),
  };
}
