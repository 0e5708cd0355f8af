/** The type of the bench's design number `i`, the binding its resolve names (both resolve servers seed and ask it). */
export const benchVct = (i: number): string => `https://credentials.bench.example/student-card/${i}`;

/**
 * The body of a resolve by the binding VCT = `vct`: preferred locales de-CH (falling back to de) and en, the card
 * render target.
 */
export const resolveRequestBody = (vct: string): string =>
  JSON.stringify({
    bindingKey: 'VCT',
    bindingValue: vct,
    preferredLocales: ['de-CH', 'en'],
    renderTarget: 'SIMPLE_CARD',
  });
