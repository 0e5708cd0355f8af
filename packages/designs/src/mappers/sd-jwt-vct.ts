import { createHash } from 'node:crypto';
import type { Claim, Display, RenderVariantInput } from '../domain/records.js';
import { pathKey } from '../domain/normalize-design.js';
import type { MapContext, MappedDesign, SourceMapper } from './mapper.js';
import { arr, displayOf, isRecord, localeOf, pathOf, sourceInvalid, str, uniqueByLocale } from './common.js';

/**
 * SD-JWT VC Type Metadata (draft-ietf-oauth-sd-jwt-vc §6): `display` per locale (`locale`, earlier drafts
 * `lang`) with `rendering.simple` and `rendering.svg_templates`, `claims` with `path`, `display` labels and `sd`.
 * `extends` is followed (resolved against the document's URL, through the same fetcher) up to
 * `designs.import.maxExtendsDepth` levels, never in a cycle, and `extends#integrity` (W3C SRI, `sha256-…`) is
 * checked when present. The extending type wins: displays per locale, claims per path.
 */
const SRI = /^(sha256|sha384|sha512)-([A-Za-z0-9+/_-]+={0,2})$/;

export function checkIntegrity(bytes: Buffer, integrity: string): boolean {
  return integrity
    .split(/\s+/)
    .filter(Boolean)
    .some((entry) => {
      const m = SRI.exec(entry);
      if (!m) return false;
      const digest = createHash(m[1]!).update(bytes).digest();
      const given = m[2]!.replace(/=+$/, '');
      return given === digest.toString('base64').replace(/=+$/, '') || given === digest.toString('base64url');
    });
}

interface TypeLayer {
  displays: Display[];
  claims: Claim[];
  variants: Omit<RenderVariantInput, 'designId'>[];
}

function layerOf(doc: Record<string, unknown>, fallback: string): TypeLayer {
  const displays: Display[] = [];
  const variants: Omit<RenderVariantInput, 'designId'>[] = [];
  for (const d of arr(doc.display).filter(isRecord)) {
    const display = displayOf(d, fallback);
    if (!display) continue;
    displays.push(display);
    const rendering = isRecord(d.rendering) ? d.rendering : {};
    for (const t of arr(rendering.svg_templates).filter(isRecord)) {
      const uri = str(t.uri);
      if (!uri) continue;
      const props = isRecord(t.properties) ? t.properties : {};
      const name = ['orientation', 'color_scheme', 'contrast']
        .map((k) => str(props[k]))
        .filter(Boolean)
        .join(' ');
      variants.push({
        renderTarget: 'SVG',
        name: name || 'SVG template',
        locales: [display.locale],
        priority: 0,
        templateUri: uri,
      });
    }
  }
  const claims: Claim[] = [];
  for (const c of arr(doc.claims).filter(isRecord)) {
    const path = pathOf(c.path);
    if (!path) continue;
    const labels = uniqueByLocale(
      arr(c.display)
        .filter(isRecord)
        .flatMap((d) =>
          str(d.label) ? [{ locale: localeOf(d.locale ?? d.lang, fallback), label: str(d.label)! }] : [],
        ),
    );
    const sd = c.sd === 'always' || c.sd === 'allowed' || c.sd === 'never' ? c.sd : undefined;
    claims.push({
      path,
      labels,
      mandatory: c.mandatory === true,
      order: claims.length + 1,
      valueKind: 'STRING',
      widgetHint: 'TEXT',
      ...(sd ? { selectiveDisclosure: sd } : {}),
    });
  }
  return { displays: uniqueByLocale(displays), claims, variants };
}

/** The child wins: displays by locale, claims by path (in the parent's order, then the child's new ones). */
function overlay(parent: TypeLayer, child: TypeLayer): TypeLayer {
  const displays = new Map(parent.displays.map((d) => [d.locale, d]));
  for (const d of child.displays) displays.set(d.locale, d);
  const claims = new Map(parent.claims.map((c) => [pathKey(c.path), c]));
  for (const c of child.claims) claims.set(pathKey(c.path), c);
  return {
    displays: [...displays.values()],
    claims: [...claims.values()].map((c, i) => ({ ...c, order: i + 1 })),
    variants: child.variants.length > 0 ? child.variants : parent.variants,
  };
}

async function resolveType(
  doc: Record<string, unknown>,
  url: string,
  ctx: MapContext,
  seen: Set<string>,
  depth: number,
): Promise<TypeLayer> {
  const own = layerOf(doc, ctx.defaultLocale);
  const parentRef = str(doc.extends);
  if (!parentRef) return own;
  if (depth >= ctx.maxExtendsDepth) throw sourceInvalid(`extends is nested deeper than ${ctx.maxExtendsDepth} levels`);
  let parentUrl: string;
  try {
    parentUrl = new URL(parentRef, url).toString();
  } catch {
    throw sourceInvalid('extends is not a URL');
  }
  if (seen.has(parentUrl)) throw sourceInvalid('extends forms a cycle');
  seen.add(parentUrl);
  const { json, bytes } = await ctx.fetchJson(parentUrl);
  const integrity = str(doc['extends#integrity']);
  if (integrity !== undefined && !checkIntegrity(bytes, integrity))
    throw sourceInvalid('extends#integrity does not match the extended type metadata');
  if (!isRecord(json)) throw sourceInvalid('the extended type metadata is not a JSON object');
  return overlay(await resolveType(json, parentUrl, ctx, seen, depth + 1), own);
}

export const sdJwtVctMetadataMapper: SourceMapper = {
  sourceType: 'SD_JWT_VCT_METADATA',
  kinds: ['CREDENTIAL'],
  accept: 'application/vct+json, application/json;q=0.9',
  contentTypes: ['application/json', 'application/vct+json'],
  async map(payload, ctx) {
    if (!isRecord(payload)) throw sourceInvalid('not a JSON object');
    const vct = str(payload.vct);
    if (!vct) throw sourceInvalid('no vct');
    const layer = await resolveType(payload, ctx.sourceUrl, ctx, new Set([ctx.sourceUrl]), 0);
    // A type without display of its own keeps its name and description (§6.2) as the default locale's display.
    if (layer.displays.length === 0 && str(payload.name))
      layer.displays.push({
        locale: ctx.defaultLocale,
        name: str(payload.name)!,
        ...(str(payload.description) ? { description: str(payload.description)! } : {}),
      });
    const mapped: MappedDesign = {
      bindings: [{ key: 'VCT', value: vct }],
      document: { displays: layer.displays, claims: layer.claims },
    };
    if (layer.variants.length > 0) mapped.variants = layer.variants;
    return [mapped];
  },
};
