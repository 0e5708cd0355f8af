import type { Binding, Claim, Display } from '../domain/records.js';
import type { ValueKind, WidgetHint } from '../domain/enums.js';
import type { MapContext, MappedDesign, SourceMapper } from './mapper.js';
import {
  arr,
  compact,
  displayOf,
  imageOf,
  isRecord,
  localeOf,
  pathOf,
  sourceInvalid,
  str,
  uniqueByLocale,
} from './common.js';

/**
 * OpenID4VCI 1.0 Credential Issuer Metadata (§12.2.4): the issuer's `display`, and per credential configuration
 * its `credential_metadata.display` and `credential_metadata.claims` (draft 15 and earlier kept both on the
 * configuration itself, and draft 13 claims as nested objects: both read too).
 */
const VALUE_TYPES: Record<string, [ValueKind, WidgetHint]> = {
  string: ['STRING', 'TEXT'],
  number: ['NUMBER', 'NUMBER'],
  integer: ['INTEGER', 'NUMBER'],
  boolean: ['BOOLEAN', 'CHECKBOX'],
  date: ['DATE', 'DATE'],
  'date-time': ['DATE_TIME', 'DATE_TIME'],
  image: ['IMAGE', 'IMAGE'],
};

function claimsOf(metadata: Record<string, unknown>, fallback: string): Claim[] {
  const out: Claim[] = [];
  const push = (path: Claim['path'], c: Record<string, unknown>) => {
    const [valueKind, widgetHint] = VALUE_TYPES[String(c.value_type ?? '').toLowerCase()] ?? ['STRING', 'TEXT'];
    const labels = uniqueByLocale(
      arr(c.display)
        .filter(isRecord)
        .flatMap((d) => (str(d.name) ? [{ locale: localeOf(d.locale, fallback), label: str(d.name)! }] : [])),
    );
    out.push({ path, labels, mandatory: c.mandatory === true, order: out.length + 1, valueKind, widgetHint });
  };
  if (Array.isArray(metadata.claims)) {
    for (const c of metadata.claims.filter(isRecord)) {
      const path = pathOf(c.path);
      if (path) push(path, c);
    }
  } else if (isRecord(metadata.claims)) {
    // Draft 13: { "given_name": { "display": [...] }, "address": { "street": { ... } } }
    const walk = (node: Record<string, unknown>, prefix: Claim['path']) => {
      for (const [name, value] of Object.entries(node)) {
        if (!isRecord(value)) continue;
        const path = [...prefix, { kind: 'Property' as const, name }];
        const leaf = 'display' in value || 'mandatory' in value || 'value_type' in value;
        if (leaf) push(path, value);
        else walk(value, path);
      }
    };
    walk(metadata.claims, []);
  }
  return out;
}

function configurationDesign(id: string, config: Record<string, unknown>, fallback: string): MappedDesign {
  const metadata = isRecord(config.credential_metadata) ? config.credential_metadata : config;
  const displays = uniqueByLocale(
    arr(metadata.display)
      .filter(isRecord)
      .map((d) => displayOf(d, fallback))
      .filter((d): d is Display => d !== null),
  );
  const bindings: Binding[] = [{ key: 'CREDENTIAL_CONFIGURATION_ID', value: id }];
  const vct = str(config.vct);
  if (vct) bindings.push({ key: 'VCT', value: vct });
  const doctype = str(config.doctype);
  if (doctype) bindings.push({ key: 'DOCTYPE', value: doctype });
  return { bindings, document: { displays, claims: claimsOf(metadata, fallback) }, label: id };
}

/** The configuration id the request names (a CREDENTIAL_CONFIGURATION_ID binding) or the URL's fragment. */
function chosenConfiguration(ctx: MapContext): string | undefined {
  const bound = ctx.requestBindings.find((b) => b.key === 'CREDENTIAL_CONFIGURATION_ID')?.value;
  if (bound) return bound;
  const fragment = new URL(ctx.sourceUrl).hash.slice(1);
  return fragment ? decodeURIComponent(fragment) : undefined;
}

function configurations(payload: unknown): Record<string, unknown> {
  if (!isRecord(payload) || !isRecord(payload.credential_configurations_supported))
    throw sourceInvalid('no credential_configurations_supported');
  return payload.credential_configurations_supported;
}

export const oid4vciIssuerMetadataMapper: SourceMapper = {
  sourceType: 'OID4VCI_ISSUER_METADATA',
  kinds: ['CREDENTIAL', 'ISSUER'],
  accept: 'application/json',
  contentTypes: ['application/json'],
  async map(payload, ctx) {
    if (!isRecord(payload)) throw sourceInvalid('not a JSON object');
    if (ctx.kind === 'ISSUER') {
      const issuer = str(payload.credential_issuer);
      if (!issuer) throw sourceInvalid('no credential_issuer');
      const displays = uniqueByLocale(
        arr(payload.display)
          .filter(isRecord)
          .flatMap((d) =>
            str(d.name)
              ? [
                  compact<Display>({
                    locale: localeOf(d.locale, ctx.defaultLocale),
                    name: str(d.name)!,
                    logo: imageOf(d.logo),
                  }),
                ]
              : [],
          ),
      );
      return [{ bindings: [{ key: 'CREDENTIAL_ISSUER', value: issuer }], document: { displays } }];
    }
    const all = configurations(payload);
    const chosen = chosenConfiguration(ctx);
    if (chosen !== undefined) {
      const config = all[chosen];
      if (!isRecord(config)) throw sourceInvalid(`no credential configuration ${chosen}`);
      return [configurationDesign(chosen, config, ctx.defaultLocale)];
    }
    const designs = Object.entries(all)
      .filter(([, c]) => isRecord(c))
      .map(([id, c]) => configurationDesign(id, c as Record<string, unknown>, ctx.defaultLocale));
    if (designs.length === 0) throw sourceInvalid('no credential configuration');
    return designs;
  },
};

/**
 * One credential configuration: a bare configuration object, or issuer metadata from which the request's
 * CREDENTIAL_CONFIGURATION_ID binding (or the URL fragment) picks one.
 */
export const oid4vciCredentialConfigurationMapper: SourceMapper = {
  sourceType: 'OID4VCI_CREDENTIAL_CONFIGURATION',
  kinds: ['CREDENTIAL'],
  accept: 'application/json',
  contentTypes: ['application/json'],
  async map(payload, ctx) {
    if (!isRecord(payload)) throw sourceInvalid('not a JSON object');
    const chosen = chosenConfiguration(ctx);
    if ('credential_configurations_supported' in payload) {
      if (chosen === undefined)
        throw sourceInvalid('name the configuration with a CREDENTIAL_CONFIGURATION_ID binding');
      const config = configurations(payload)[chosen];
      if (!isRecord(config)) throw sourceInvalid(`no credential configuration ${chosen}`);
      return [configurationDesign(chosen, config, ctx.defaultLocale)];
    }
    if (!str(payload.format)) throw sourceInvalid('not a credential configuration (no format)');
    if (chosen === undefined) throw sourceInvalid('name the configuration with a CREDENTIAL_CONFIGURATION_ID binding');
    return [configurationDesign(chosen, payload, ctx.defaultLocale)];
  },
};
