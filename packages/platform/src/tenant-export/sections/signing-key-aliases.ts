import Type, { type Static } from 'typebox';
import type { JWK } from 'jose';
import { SIGNING_ALGORITHMS } from '../../keys/signing-algorithms.js';
import type { SigningAlgorithm } from '../../keys/key-manager.js';
import type { Platform } from '../../platform.js';
import { TENANT_PLACEHOLDER, type TenantExporter } from '../exporter.js';

const SigningKeyAliases = Type.Array(
  Type.Object(
    {
      alias: Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[A-Za-z0-9._-]+:\\{tenant\\}(:[A-Za-z0-9._:-]+)?$',
      }),
      algorithm: Type.Unsafe<SigningAlgorithm>(Type.Union(SIGNING_ALGORITHMS.map((a) => Type.Literal(a)))),
      /** Public keys still published under the alias (active first): for reference, never imported. */
      publicJwks: Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 20 }),
    },
    { additionalProperties: false },
  ),
  { maxItems: 500 },
);
type SigningKeyAliases = Static<typeof SigningKeyAliases>;

/** Whether a key alias belongs to the tenant: the convention `<context>:<tenant>[:<name>]` (audit, status lists). */
export const isTenantAlias = (alias: string, tenantId: string): boolean => alias.split(':')[1] === tenantId;

/** Private members a JWK may carry: never exported, even if a provider answered one by mistake. */
const PRIVATE_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']);
const publicOnly = (jwk: JWK): Record<string, unknown> =>
  Object.fromEntries(Object.entries(jwk).filter(([k]) => !PRIVATE_MEMBERS.has(k)));

/**
 * Signing key aliases of the tenant with their published public keys (001 §4.5 "signing key aliases"). Key material
 * stays in the key manager: the import creates a new key under each alias in the target tenant (the key manager's
 * `ensure`: an alias the target already has keeps its key), so relying parties must take the target's key sets anew.
 */
export function signingKeyAliasesExporter(platform: Platform): TenantExporter<SigningKeyAliases> {
  return {
    section: 'platform.signing-key-aliases',
    origin: 'stored',
    ownUnits: true,
    schema: SigningKeyAliases,
    async read({ tenantId }) {
      const active = (await platform.keys.list()).filter(
        (k) => k.state === 'active' && isTenantAlias(k.alias, tenantId),
      );
      const out: SigningKeyAliases = [];
      for (const key of active.sort((a, b) => a.alias.localeCompare(b.alias))) {
        const parts = key.alias.split(':');
        parts[1] = TENANT_PLACEHOLDER;
        out.push({
          alias: parts.join(':'),
          algorithm: key.algorithm,
          publicJwks: (await platform.keys.publishedJwks(key.alias)).map(publicOnly),
        });
      }
      return out;
    },
    async afterCommit(tenantId, data) {
      for (const key of data)
        await platform.keys.ensure(key.alias.replace(TENANT_PLACEHOLDER, tenantId), key.algorithm);
      return data.length > 0
        ? { notes: ['New key material under the same aliases: relying parties take the new public keys.'] }
        : undefined;
    },
  };
}
