/**
 * The JSON shape of each association, built by the database (jsonb_build_object) so that a read with its
 * includes is one statement (issue 20 §3). Each takes the table alias.
 */
export const electronicAddressJson = (a: string) => `jsonb_build_object(
  'id', ${a}.id, 'addressType', ${a}.address_type, 'value', ${a}.value, 'primary', ${a}.is_primary,
  'verified', ${a}.verified, 'createdAt', party_iso(${a}.created_at))`;

export const physicalAddressJson = (a: string) => `jsonb_build_object(
  'id', ${a}.id, 'addressType', ${a}.address_type, 'streetLines', ${a}.street_lines, 'locality', ${a}.locality,
  'region', ${a}.region, 'postalCode', ${a}.postal_code, 'countryCode', ${a}.country_code,
  'primary', ${a}.is_primary, 'createdAt', party_iso(${a}.created_at))`;

export const registrationJson = (a: string) => `jsonb_build_object(
  'id', ${a}.id, 'scheme', ${a}.scheme, 'value', ${a}.value, 'issuingAuthority', ${a}.issuing_authority,
  'createdAt', party_iso(${a}.created_at))`;

export const relationshipJson = (a: string) => `jsonb_build_object(
  'id', ${a}.id, 'fromPartyId', ${a}.from_party_id, 'toPartyId', ${a}.to_party_id,
  'relationshipType', ${a}.relationship_type, 'validFrom', party_iso(${a}.valid_from),
  'validTo', party_iso(${a}.valid_to), 'createdAt', party_iso(${a}.created_at),
  'updatedAt', party_iso(${a}.updated_at))`;

export const memberJson = (a: string) => `jsonb_build_object(
  'id', ${a}.id, 'partyType', ${a}.party_type, 'displayName', ${a}.display_name)`;

/** At most this many members come with `include=members`; GET /groups/{id}/members pages through all. */
export const INCLUDED_MEMBERS_LIMIT = 1000;

/** One subquery per association, aliased as the view field; `p` is the party. */
export const INCLUDE_SQL = {
  addresses: `jsonb_build_object(
    'electronic', (SELECT coalesce(jsonb_agg(${electronicAddressJson('e')} ORDER BY e.created_at, e.id), '[]')
                     FROM party_electronic_addresses e WHERE e.tenant_id = p.tenant_id AND e.party_id = p.id),
    'physical', (SELECT coalesce(jsonb_agg(${physicalAddressJson('a')} ORDER BY a.created_at, a.id), '[]')
                   FROM party_physical_addresses a WHERE a.tenant_id = p.tenant_id AND a.party_id = p.id)
  ) AS addresses`,
  registrations: `(SELECT coalesce(jsonb_agg(${registrationJson('r')} ORDER BY r.created_at, r.id), '[]')
    FROM party_registrations r WHERE r.tenant_id = p.tenant_id AND r.party_id = p.id) AS registrations`,
  relationships: `(SELECT coalesce(jsonb_agg(${relationshipJson('x')} ORDER BY x.created_at, x.id), '[]')
    FROM party_relationships x
    WHERE x.tenant_id = p.tenant_id AND x.deleted_at IS NULL AND (x.from_party_id = p.id OR x.to_party_id = p.id))
    AS relationships`,
  members: `(SELECT coalesce(jsonb_agg(${memberJson('m')} ORDER BY m.display_name, m.id), '[]')
    FROM (SELECT q.id, q.party_type, q.display_name FROM party_group_members gm
          JOIN parties q ON q.tenant_id = gm.tenant_id AND q.id = gm.member_id AND q.deleted_at IS NULL
          WHERE gm.tenant_id = p.tenant_id AND gm.group_id = p.id
          ORDER BY q.display_name, q.id LIMIT ${INCLUDED_MEMBERS_LIMIT}) m) AS members`,
  loginConfig: `(SELECT c.config FROM party_service_login_configs c
    WHERE c.tenant_id = p.tenant_id AND c.service_id = p.id) AS "loginConfig"`,
} as const;

export type LoadableInclude = keyof typeof INCLUDE_SQL;
