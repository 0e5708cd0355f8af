import type { Claim, Display, RenderVariantInput } from '../domain/records.js';
import type { RenderTarget } from '../domain/enums.js';
import type { MappedDesign, SourceMapper } from './mapper.js';
import { arr, isRecord, localeOf, pointerPath, sourceInvalid, str } from './common.js';

/**
 * W3C VC Render Method (`renderMethod` of a verifiable credential or of a credential template, VC Data Model 2.0
 * §5.x and the VC Render Method draft): each `SvgRenderingTemplate2023` or `TemplateRenderMethod` entry becomes a
 * render variant (SVG or PDF by media type, template URI, `renderProperty` JSON pointers as the shown claims); the
 * credential's `name` and `description` (plain strings, or language-tagged values `{@value, @language}`, VCDM 2.0
 * §11.1) the displays; the pointers' last segments the claim labels in the default locale.
 */
function texts(v: unknown, fallback: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of Array.isArray(v) ? v : [v]) {
    const text = typeof item === 'string' ? str(item) : isRecord(item) ? str(item['@value']) : undefined;
    if (!text) continue;
    const locale = isRecord(item) ? localeOf(item['@language'], fallback) : fallback;
    if (!out.has(locale)) out.set(locale, text);
  }
  return out;
}

function targetOf(method: Record<string, unknown>): RenderTarget {
  const template = isRecord(method.template) ? method.template : {};
  const output = isRecord(method.outputPreference) ? method.outputPreference : {};
  const media = str(template.mediaType) ?? str(output.mediaType) ?? str(method.mediaType) ?? '';
  return media === 'application/pdf' ? 'PDF' : 'SVG';
}

export const w3cRenderMethodMapper: SourceMapper = {
  sourceType: 'W3C_RENDER_METHOD',
  kinds: ['CREDENTIAL'],
  accept: 'application/vc+ld+json, application/ld+json, application/vc, application/json;q=0.9',
  contentTypes: ['application/vc+ld+json', 'application/ld+json', 'application/vc', 'application/json'],
  async map(payload, ctx) {
    if (!isRecord(payload)) throw sourceInvalid('not a JSON object');
    const methods = (Array.isArray(payload.renderMethod) ? payload.renderMethod : [payload.renderMethod]).filter(
      isRecord,
    );
    if (methods.length === 0) throw sourceInvalid('no renderMethod');
    const variants: Omit<RenderVariantInput, 'designId'>[] = [];
    const pointers: string[] = [];
    methods.forEach((m, i) => {
      const template = m.template;
      const uri = str(m.id) ?? (isRecord(template) ? str(template.id) : str(template));
      const properties = arr(m.renderProperty).map(String);
      for (const p of properties) if (!pointers.includes(p)) pointers.push(p);
      variants.push({
        renderTarget: targetOf(m),
        name: str(m.name) ?? str(m.type) ?? `Render method ${i + 1}`,
        locales: [],
        priority: methods.length - i,
        ...(uri ? { templateUri: uri } : {}),
        ...(properties.length > 0 ? { claimPaths: properties.map((p) => p.slice(1).replaceAll('/', '.')) } : {}),
      });
    });
    const names = texts(payload.name ?? methods[0]!.name, ctx.defaultLocale);
    const descriptions = texts(payload.description, ctx.defaultLocale);
    const displays: Display[] = [...names].map(([locale, name]) => ({
      locale,
      name,
      ...(descriptions.has(locale) ? { description: descriptions.get(locale)! } : {}),
    }));
    const claims: Claim[] = pointers.flatMap((pointer) => {
      const path = pointerPath(pointer);
      if (!path) return [];
      return [
        {
          path,
          labels: [{ locale: ctx.defaultLocale, label: path[path.length - 1]!.name }],
          mandatory: false,
          order: 0,
          valueKind: 'STRING' as const,
          widgetHint: 'TEXT' as const,
        },
      ];
    });
    claims.forEach((c, i) => (c.order = i + 1));
    const mapped: MappedDesign = { bindings: [], document: { displays, claims }, variants };
    return [mapped];
  },
};
