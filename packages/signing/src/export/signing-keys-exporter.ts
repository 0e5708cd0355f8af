import Type, { type Static } from 'typebox';
import type { TenantExporter } from '@tessera/platform';

const SigningKeys = Type.Array(
  Type.Object(
    {
      kid: Type.String({ minLength: 1, maxLength: 256 }),
      providerId: Type.String({ maxLength: 256 }),
      keyKind: Type.Union([Type.Literal('RSA'), Type.Literal('EC'), Type.Literal('DSA')]),
      /** Base64 DER SubjectPublicKeyInfo: public only. */
      publicKeySpki: Type.String({ maxLength: 65536 }),
      certificate: Type.Union([Type.String({ maxLength: 65536 }), Type.Null()]),
      certificateChain: Type.Array(Type.Unknown(), { maxItems: 20 }),
      accessLevel: Type.String({ maxLength: 100 }),
      roleRestrictions: Type.Array(Type.Unknown(), { maxItems: 100 }),
    },
    { additionalProperties: false },
  ),
  { maxItems: 10000 },
);
type SigningKeys = Static<typeof SigningKeys>;

interface Row {
  kid: string;
  provider_id: string;
  key_kind: 'RSA' | 'EC' | 'DSA';
  public_key_spki: string;
  certificate: string | null;
  certificate_chain: unknown[] | string;
  access_level: string;
  role_restrictions: unknown[] | string;
}

const json = (v: unknown[] | string): unknown[] => (typeof v === 'string' ? (JSON.parse(v) as unknown[]) : v);

/**
 * The document-signing keys of the tenant (002 §2.1) for the tenant export (001 §4.5 "signing key aliases"): each
 * key's kid, provider, kind, public key, certificate and chain, access level and role restrictions. Reference only:
 * the private key stays with its provider (sealed in `signing_software_keys`, or in a device), so the section has no
 * `write` and the import reports it as not imported; keys are generated or linked anew in the target. The key's
 * `subject_id` (whom it belongs to) is left out: it may name a person.
 */
export function documentSigningKeysExporter(): TenantExporter<SigningKeys> {
  return {
    section: 'signing.document-signing-keys',
    origin: 'stored',
    schema: SigningKeys,
    async read({ sql }) {
      const { rows } = await sql.query<Row>(
        `SELECT kid, provider_id, key_kind, public_key_spki, certificate, certificate_chain, access_level,
                role_restrictions
           FROM signing_key_entries ORDER BY kid`,
      );
      return rows.map((r) => ({
        kid: r.kid,
        providerId: r.provider_id,
        keyKind: r.key_kind,
        publicKeySpki: r.public_key_spki,
        certificate: r.certificate,
        certificateChain: json(r.certificate_chain),
        accessLevel: r.access_level,
        roleRestrictions: json(r.role_restrictions),
      }));
    },
  };
}
