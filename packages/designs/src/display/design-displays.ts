import type { Platform } from '@tessera/platform';
import type { DesignsConfig } from '../config.js';
import type { BindingKey, DesignKind } from '../domain/enums.js';
import type { DesignRecord, Display } from '../domain/records.js';
import { resolveDesign } from '../domain/resolve-design.js';
import { createResolveReads } from '../storage/resolve-reads.js';

/** A display entry as OpenID4VCI 1.0 §12.2.4 writes it (credential and issuer `display`). */
export type OpenId4VciDisplay = Record<string, unknown>;

/**
 * The design registry read by the other contexts when they describe themselves (issue 17 item 6): the issuer's
 * metadata takes a credential configuration's `display` and its claims' display from the design bound to the
 * configuration (binding `CREDENTIAL_CONFIGURATION_ID`, else `VCT`); the bridge's request object takes the
 * verifier's `client_name` and `logo_uri` from the verifier design bound to its client id (`CLIENT_ID`). The design
 * is merged with its layers exactly as the resolve endpoint merges it (domain/resolve-design.ts). A read, not a
 * command: it is not audited per call (a wallet fetching metadata is not an action on the registry).
 */
export interface DesignDisplays {
  credentialDisplay(
    tenantId: string,
    credentialConfigurationId: string,
    vct: string | undefined,
  ): Promise<{ display: OpenId4VciDisplay[]; claims: Record<string, OpenId4VciDisplay[]> } | null>;
  verifierDisplay(
    tenantId: string,
    clientId: string,
    preferredLocales?: readonly string[],
  ): Promise<{ clientName: string; logoUri?: string; locale: string } | null>;
}

export function createDesignDisplays(platform: Platform, config: DesignsConfig): DesignDisplays {
  const read = createResolveReads(platform.db);

  async function merged(
    tenantId: string,
    kind: DesignKind,
    bindings: { key: BindingKey; value: string | undefined }[],
    preferredLocales: readonly string[] = [],
  ) {
    for (const { key, value } of bindings) {
      if (value === undefined) continue;
      const found = await read(tenantId, { kind, key, value });
      if (!found) continue;
      return resolveDesign(
        {
          record: found.stored.record,
          revision: found.stored.revision,
          tenantDefaults: config.tenantDefaults[tenantId] ?? null,
          snapshot: found.stored.sourceDocument,
          inlineOca: null,
          inlineOcaDigest: null,
          variants: found.variants,
        },
        { preferredLocales, renderTarget: null, defaultLocale: config.defaultLocale },
      );
    }
    return null;
  }

  return {
    async credentialDisplay(tenantId, credentialConfigurationId, vct) {
      const resolved = await merged(tenantId, 'CREDENTIAL', [
        { key: 'CREDENTIAL_CONFIGURATION_ID', value: credentialConfigurationId },
        { key: 'VCT', value: vct },
      ]);
      if (!resolved) return null;
      return { display: resolved.design.displays.map(credentialDisplayEntry), claims: claimDisplays(resolved.design) };
    },

    async verifierDisplay(tenantId, clientId, preferredLocales = []) {
      const resolved = await merged(tenantId, 'VERIFIER', [{ key: 'CLIENT_ID', value: clientId }], preferredLocales);
      if (!resolved?.display) return null;
      return {
        clientName: resolved.display.name,
        locale: resolved.display.locale,
        ...(resolved.display.logo ? { logoUri: resolved.display.logo.uri } : {}),
      };
    },
  };
}

/** OpenID4VCI 1.0 §12.2.4 credential display: name, locale, logo {uri, alt_text}, description, colours, image. */
function credentialDisplayEntry(d: Display): OpenId4VciDisplay {
  return {
    name: d.name,
    locale: d.locale,
    ...(d.logo ? { logo: { uri: d.logo.uri, ...(d.logo.altText ? { alt_text: d.logo.altText } : {}) } } : {}),
    ...(d.description ? { description: d.description } : {}),
    ...(d.backgroundColor ? { background_color: d.backgroundColor } : {}),
    ...(d.backgroundImage ? { background_image: { uri: d.backgroundImage.uri } } : {}),
    ...(d.textColor ? { text_color: d.textColor } : {}),
  };
}

/** Claim display per claim path (names joined with dots; array elements are not addressed by a design's labels). */
function claimDisplays(design: DesignRecord): Record<string, OpenId4VciDisplay[]> {
  const out: Record<string, OpenId4VciDisplay[]> = {};
  for (const claim of design.claims ?? []) {
    if (claim.labels.length === 0) continue;
    const key = claim.path.map((p) => p.name).join('.');
    out[key] = claim.labels.map((l) => ({ name: l.label, locale: l.locale }));
  }
  return out;
}
