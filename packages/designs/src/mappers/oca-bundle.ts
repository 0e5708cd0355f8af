import type { ValueKind, WidgetHint } from '../domain/enums.js';
import type { Claim, ClaimLabel, Display } from '../domain/records.js';
import type { MappedDesign, SourceMapper } from './mapper.js';
import { colourOf, compact, imageOf, isRecord, localeOf, sourceInvalid, str } from './common.js';

/**
 * Overlays Capture Architecture bundles (OCA 1.0 specification; Aries RFC 0755 for the branding overlay): the
 * capture base's attributes become claims (type → value kind), the `meta` overlays the displays per language,
 * `label` overlays the claim labels, `conformance` (M/O) the mandatory flag, the Aries `branding` overlay the
 * colours and images. Overlays come as an array (OCA 1.0, Aries) or keyed by overlay name (OCA 2.0 bundles);
 * a `{bundle, dependencies}` wrapper is unwrapped. Used by imports and by a resolve's inline `ocaBundle`.
 */
const TYPES: Record<string, [ValueKind, WidgetHint]> = {
  Text: ['STRING', 'TEXT'],
  Numeric: ['NUMBER', 'NUMBER'],
  Boolean: ['BOOLEAN', 'CHECKBOX'],
  DateTime: ['DATE_TIME', 'DATE_TIME'],
  Binary: ['IMAGE', 'IMAGE'],
  Reference: ['OBJECT', 'TEXT'],
};

function kindOf(type: unknown): [ValueKind, WidgetHint] {
  const t = str(type) ?? 'Text';
  if (t.startsWith('Array[')) return ['ARRAY', 'MULTILINE_TEXT'];
  if (t.startsWith('refs:')) return ['OBJECT', 'TEXT'];
  return TYPES[t] ?? ['STRING', 'TEXT'];
}

/** The overlays as a flat list, each with its short type (`meta`, `label`, `branding`, ...). */
function overlaysOf(bundle: Record<string, unknown>): { kind: string; overlay: Record<string, unknown> }[] {
  const raw = bundle.overlays;
  const list: Record<string, unknown>[] = Array.isArray(raw)
    ? raw.filter(isRecord)
    : isRecord(raw)
      ? Object.values(raw).flatMap((v) => (Array.isArray(v) ? v.filter(isRecord) : isRecord(v) ? [v] : []))
      : [];
  return list.map((overlay) => {
    const type = str(overlay.type) ?? '';
    // spec/overlays/label/1.0, aries/overlays/branding/1.0, or a bare name in OCA 2.0.
    const kind = type.split('/').slice(-2, -1)[0] ?? type;
    return { kind: kind || type, overlay };
  });
}

export function mapOcaBundle(payload: unknown, defaultLocale: string): MappedDesign {
  const bundle: unknown = isRecord(payload) && isRecord(payload.bundle) ? payload.bundle : payload;
  if (!isRecord(bundle)) throw sourceInvalid('not a JSON object');
  const base = bundle.capture_base;
  if (!isRecord(base)) throw sourceInvalid('no capture_base');
  const attributes = isRecord(base.attributes) ? base.attributes : {};
  const overlays = overlaysOf(bundle);
  const of = (kind: string) => overlays.filter((o) => o.kind === kind).map((o) => o.overlay);

  const labels = new Map<string, ClaimLabel[]>();
  for (const o of of('label')) {
    const locale = localeOf(o.language ?? o.lang, defaultLocale);
    const attributeLabels = isRecord(o.attribute_labels) ? o.attribute_labels : {};
    for (const [name, label] of Object.entries(attributeLabels)) {
      const text = str(label);
      if (!text) continue;
      const list = labels.get(name) ?? [];
      if (!list.some((l) => l.locale === locale)) list.push({ locale, label: text });
      labels.set(name, list);
    }
  }
  const conformance = Object.assign(
    {},
    ...of('conformance').map((o) => (isRecord(o.attribute_conformance) ? o.attribute_conformance : {})),
  ) as Record<string, unknown>;
  const claims: Claim[] = Object.entries(attributes).map(([name, type], i) => {
    const [valueKind, widgetHint] = kindOf(type);
    return {
      path: [{ kind: 'Property', name }],
      labels: labels.get(name) ?? [],
      mandatory: conformance[name] === 'M',
      order: i + 1,
      valueKind,
      widgetHint,
    };
  });

  const branding = of('branding')[0] ?? {};
  const displays: Display[] = [];
  for (const o of of('meta')) {
    const name = str(o.name);
    if (!name) continue;
    const locale = localeOf(o.language ?? o.lang, defaultLocale);
    if (displays.some((d) => d.locale === locale)) continue;
    displays.push(
      compact<Display>({
        locale,
        name,
        description: str(o.description),
        logo: imageOf(branding.logo),
        backgroundColor: colourOf(branding.primary_background_color),
        backgroundImage: imageOf(branding.background_image),
        textColor: colourOf(branding.text_color),
      }),
    );
  }
  const said = str(base.d) ?? str(base.digest);
  return {
    bindings: said ? [{ key: 'OCA_CAPTURE_BASE', value: said }] : [],
    document: { displays, claims },
  };
}

export const ocaBundleMapper: SourceMapper = {
  sourceType: 'OCA_BUNDLE',
  kinds: ['CREDENTIAL'],
  accept: 'application/json',
  contentTypes: ['application/json'],
  async map(payload, ctx) {
    return [mapOcaBundle(payload, ctx.defaultLocale)];
  },
};
