import type { DesignKind } from './enums.js';

/**
 * The three design registries share their operations (001 §4.1: "Issuer designs use the identical set with
 * /designs/issuers, and verifier designs with /designs/verifiers"). Policy actions are the command ids (001 §5):
 * `credential-design.rest-credential-designs.create`, `credential-design.rest-resolution.credential`, and the
 * issuer and verifier equivalents.
 */
export interface KindInfo {
  kind: DesignKind;
  /** Path segment under /api/v1/designs. */
  segment: 'credentials' | 'issuers' | 'verifiers';
  /** Command id prefix of the REST operations. */
  commandPrefix: string;
  /** Command id of the resolution. */
  resolveCommand: string;
  /** Human name in messages and OpenAPI tags. */
  noun: string;
}

export const KINDS: Record<DesignKind, KindInfo> = {
  CREDENTIAL: {
    kind: 'CREDENTIAL',
    segment: 'credentials',
    commandPrefix: 'credential-design.rest-credential-designs',
    resolveCommand: 'credential-design.rest-resolution.credential',
    noun: 'credential design',
  },
  ISSUER: {
    kind: 'ISSUER',
    segment: 'issuers',
    commandPrefix: 'credential-design.rest-issuer-designs',
    resolveCommand: 'credential-design.rest-resolution.issuer',
    noun: 'issuer design',
  },
  VERIFIER: {
    kind: 'VERIFIER',
    segment: 'verifiers',
    commandPrefix: 'credential-design.rest-verifier-designs',
    resolveCommand: 'credential-design.rest-resolution.verifier',
    noun: 'verifier design',
  },
};

export const VARIANT_COMMANDS = 'credential-design.rest-render-variants';
export const SNAPSHOT_COMMANDS = 'credential-design.rest-snapshots';
export const ASSET_COMMANDS = 'credential-design.rest-assets';
