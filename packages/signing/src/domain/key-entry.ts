import type { KeyKind } from './algorithms.js';

/**
 * A key entry (002 §2.1 KeyEntry): a key of a provider, named by the tenant's own `kid`, with its X.509 certificate
 * and chain when one was imported, and who may use it (AccessRestrictions).
 */
export const ACCESS_LEVELS = ['TENANT', 'SUBJECT'] as const;
/** TENANT: every principal of the tenant the role restrictions allow; SUBJECT: only the subject that created it. */
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export const PERMISSIONS = ['READ', 'SIGN'] as const;
/** READ: see the entry; SIGN: create signatures with its key (implies READ). */
export type Permission = (typeof PERMISSIONS)[number];

export interface RoleRestriction {
  name: string;
  permission: Permission;
}

export interface AccessRestrictions {
  subjectId: string;
  accessLevel: AccessLevel;
  roleRestrictions: RoleRestriction[];
}

export interface KeyEntryRecord {
  kid: string;
  providerId: string;
  /** Null for a certificate imported under a provider that holds no key for it (the external provider). */
  providerKid: string | null;
  keyKind: KeyKind;
  /** SubjectPublicKeyInfo, DER. */
  publicKeySpki: Buffer;
  /** DER of the signing certificate, and of the chain above it (issuer first). */
  certificate: Buffer | null;
  certificateChain: Buffer[];
  access: AccessRestrictions;
  createdAt: Date;
}

export interface Caller {
  subjectId: string;
  roles: readonly string[];
}

/**
 * Why `caller` may not use `entry` for `permission`, or null (issue 21 §5): the subject level keeps the entry to its
 * creator;
 * role restrictions, when any are set, require one of the caller's roles with that permission (SIGN covers READ).
 */
export function accessDecision(entry: KeyEntryRecord, caller: Caller, permission: Permission): string | null {
  const isSubject = entry.access.subjectId === caller.subjectId;
  if (entry.access.accessLevel === 'SUBJECT' && !isSubject) return 'subject_only';
  // The subject that created the entry may always read it; signing follows the role restrictions.
  if (permission === 'READ' && isSubject) return null;
  const restrictions = entry.access.roleRestrictions;
  if (restrictions.length === 0) return null;
  const granted = restrictions.some(
    (r) => caller.roles.includes(r.name) && (r.permission === permission || r.permission === 'SIGN'),
  );
  return granted ? null : 'role_restricted';
}
