import type { CommandContext, Sql } from '@tessera/platform';
import type { SigningServices } from '../services.js';
import { certificateView, type CertificateView } from '../domain/certificates.js';
import { keyAccessDenied, keyEntryNotFound } from '../domain/errors.js';
import { accessDecision, type KeyEntryRecord, type Permission } from '../domain/key-entry.js';
import { findKeyEntry } from '../storage/key-entry-rows.js';

/** The key entry `kid` of the tenant, when the caller may use it for `permission` (issue 21 §5). */
export async function loadKeyEntry(
  sql: Sql,
  ctx: CommandContext,
  kid: string,
  permission: Permission,
): Promise<KeyEntryRecord> {
  return decideAccess(await findKeyEntry(sql, kid), ctx, kid, permission);
}

/**
 * The key entry `kid` for a step that only reads it (determine, create digest, merge), from the recently read
 * entries when there (flow/recent-key-entries.ts); the caller's access is decided on every call.
 */
export async function readKeyEntry(s: SigningServices, ctx: CommandContext, kid: string): Promise<KeyEntryRecord> {
  const entry = await s.recentKeyEntries.read(ctx.tenantId, kid, () =>
    s.platform.db.withTenant(ctx.tenantId, (sql) => findKeyEntry(sql, kid)),
  );
  return decideAccess(entry, ctx, kid, 'READ');
}

function decideAccess(
  entry: KeyEntryRecord | null,
  ctx: CommandContext,
  kid: string,
  permission: Permission,
): KeyEntryRecord {
  if (!entry) throw keyEntryNotFound(kid);
  const principal = ctx.principal;
  const denied = accessDecision(entry, { subjectId: principal?.id ?? '', roles: principal?.roles ?? [] }, permission);
  if (denied) throw keyAccessDenied(kid);
  return entry;
}

const ALGORITHM_NAME = { RSA: 'RSA', EC: 'ECDSA', DSA: 'DSA' } as const;

export interface KeyEntryView {
  attributes: { name: string; value: string }[];
  kid: string;
  providerId: string;
  encryptionAlgorithm: string;
  publicKey: { algorithm: string; value: string; format: string };
  certificate?: CertificateView;
  certificateChain: CertificateView[];
}

/** The wire KeyEntry (002 §2.1). */
export function keyEntryView(entry: KeyEntryRecord): KeyEntryView {
  return {
    attributes: [
      ...(entry.providerKid ? [{ name: 'providerKid', value: entry.providerKid }] : []),
      { name: 'createdAt', value: entry.createdAt.toISOString() },
    ],
    kid: entry.kid,
    providerId: entry.providerId,
    encryptionAlgorithm: ALGORITHM_NAME[entry.keyKind],
    publicKey: {
      algorithm: ALGORITHM_NAME[entry.keyKind],
      value: entry.publicKeySpki.toString('base64'),
      format: 'X.509',
    },
    ...(entry.certificate ? { certificate: certificateView(entry.certificate) } : {}),
    certificateChain: entry.certificateChain.map(certificateView),
  };
}

export const accessView = (entry: KeyEntryRecord) => ({
  subjectId: entry.access.subjectId,
  roleRestrictions: entry.access.roleRestrictions,
  accessLevel: entry.access.accessLevel,
});
