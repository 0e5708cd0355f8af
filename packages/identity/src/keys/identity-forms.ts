import { claimsAad, holderKeyAad, subjectAad } from '../domain/aad.js';
import { claimIdentifiers, federationSubjectKey } from '../domain/identifiers.js';
import type { KeyVersions } from '../domain/key-migration.js';
import type { IdentifierType, TenantUnit } from '../identity-store.js';
import type { KeyContext } from '../storage/key-state-store.js';
import type { IdentityCrypto } from './identity-crypto.js';

/** One row of the HMAC lookup index. */
export interface IdentifierForm {
  type: IdentifierType;
  version: number;
  mac: string;
  bindingId: string | null;
}

export interface ClaimForms {
  sealed: string;
  identifiers: IdentifierForm[];
}

export interface WalletForms {
  sealed: string;
  /** The KEY index row; a soft-deleted binding has none. */
  identifiers: IdentifierForm[];
}

export interface FederationForms {
  sealed: string;
  mac: string;
}

/**
 * How each stored value looks under one set of key versions: the sealed claims and their index rows, a binding's
 * sealed value and MAC. The store computes them for the current versions (and for the next ones while a migration
 * is open); the key migration computes them for the next versions from the opened current ones.
 */
export class IdentityForms {
  constructor(
    private readonly crypto: IdentityCrypto,
    private readonly serviceClaim: string,
  ) {}

  async claims(
    unit: TenantUnit,
    versions: KeyVersions,
    identityId: string,
    claims: Record<string, unknown>,
  ): Promise<ClaimForms> {
    const sealed = await this.crypto.seal(
      unit,
      versions.dek,
      JSON.stringify(claims),
      claimsAad(unit.tenantId, identityId),
    );
    const identifiers = await Promise.all(
      claimIdentifiers(claims, this.serviceClaim).map(async ({ type, value }) => ({
        type,
        version: versions.hmac,
        mac: await this.crypto.mac(unit, versions.hmac, value),
        bindingId: null,
      })),
    );
    return { sealed, identifiers };
  }

  async wallet(
    unit: TenantUnit,
    versions: KeyVersions,
    bindingId: string,
    holderKey: string,
    live: boolean,
  ): Promise<WalletForms> {
    const sealed = await this.crypto.seal(unit, versions.dek, holderKey, holderKeyAad(unit.tenantId, bindingId));
    if (!live) return { sealed, identifiers: [] };
    const mac = await this.crypto.mac(unit, versions.hmac, holderKey);
    return { sealed, identifiers: [{ type: 'KEY', version: versions.hmac, mac, bindingId }] };
  }

  async federation(
    unit: TenantUnit,
    versions: KeyVersions,
    bindingId: string,
    issuer: string,
    subject: string,
  ): Promise<FederationForms> {
    return {
      sealed: await this.crypto.seal(unit, versions.dek, subject, subjectAad(unit.tenantId, bindingId, issuer)),
      mac: await this.crypto.mac(unit, versions.hmac, federationSubjectKey(issuer, subject)),
    };
  }

  /** The value's MAC under every HMAC version the context names: a lookup matches whichever form is stored. */
  lookupMacs(unit: TenantUnit, context: KeyContext, value: string): Promise<string[]> {
    return Promise.all(versionsOf(context).map((v) => this.crypto.mac(unit, v.hmac, value)));
  }

  openClaims(unit: TenantUnit, identityId: string, sealed: string): Promise<string> {
    return this.crypto.open(unit, sealed, claimsAad(unit.tenantId, identityId));
  }

  openHolderKey(unit: TenantUnit, bindingId: string, sealed: string): Promise<string> {
    return this.crypto.open(unit, sealed, holderKeyAad(unit.tenantId, bindingId));
  }

  openSubject(unit: TenantUnit, bindingId: string, issuer: string, sealed: string): Promise<string> {
    return this.crypto.open(unit, sealed, subjectAad(unit.tenantId, bindingId, issuer));
  }
}

export const versionsOf = (context: KeyContext): KeyVersions[] =>
  context.next ? [context.current, context.next] : [context.current];
