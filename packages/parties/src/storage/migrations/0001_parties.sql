-- Party management (001 §2.5, §4.4): one polymorphic table for every party type, and the associations.
--
-- One table, not one per type (decision in README.md): the polymorphic list and get (/parties), group members of
-- any type, relationships and addresses all point at one key, and a read of any party is one statement. The columns
-- that lists filter and sort on are real columns; the remaining fields of each type are in `attributes`.
--
-- Soft delete (001 §3): `deleted_at` set; the row stays (audit, references) and its id is never reused.

CREATE TABLE parties (
  tenant_id             text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id                    uuid NOT NULL,
  party_type            text NOT NULL
    CHECK (party_type IN ('PERSON', 'ORGANIZATION', 'ORGANIZATION_UNIT', 'SERVICE', 'GROUP')),
  -- Organization type of an organization, service type of a service (the /parties partySubtype filter).
  party_subtype         text,
  display_name          text NOT NULL,
  origin                text,
  -- A person's home unit; a unit's parent (NULL: directly under the tenant root).
  organization_unit_id  uuid,
  attributes            jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object'),
  -- Folded words of the names (domain/search-text.ts), searched with to_tsvector('simple', ...).
  search_text           text NOT NULL DEFAULT '',
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL,
  deleted_at            timestamptz,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, organization_unit_id) REFERENCES parties (tenant_id, id)
);
SELECT tessera_tenant_table('parties');
-- Lists: live parties of a type in name order (keyset-friendly: display_name, id).
CREATE INDEX parties_live_by_type ON parties (tenant_id, party_type, display_name, id) WHERE deleted_at IS NULL;
CREATE INDEX parties_live_by_unit ON parties (tenant_id, organization_unit_id) WHERE deleted_at IS NULL;
-- Free-text q (issue 20 §3): the 'simple' configuration exists on every PostgreSQL, embedded included, and neither
-- stems nor drops words (names are not prose); accents are folded before storage, since unaccent is not loaded.
-- (Dropped by 0002: under row-level security the runtime role cannot use it.)
CREATE INDEX parties_search ON parties USING gin (to_tsvector('simple', search_text)) WHERE deleted_at IS NULL;
-- A service's OAuth client id names one live service of the tenant.
CREATE UNIQUE INDEX parties_service_client ON parties (tenant_id, (attributes ->> 'oauthClientId'))
  WHERE party_type = 'SERVICE' AND deleted_at IS NULL AND attributes ? 'oauthClientId';
-- A group's name names one live group of the tenant.
CREATE UNIQUE INDEX parties_group_name ON parties (tenant_id, lower(display_name))
  WHERE party_type = 'GROUP' AND deleted_at IS NULL;

CREATE TABLE party_group_members (
  tenant_id   text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  group_id    uuid NOT NULL,
  member_id   uuid NOT NULL,
  added_at    timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, group_id, member_id),
  FOREIGN KEY (tenant_id, group_id) REFERENCES parties (tenant_id, id),
  FOREIGN KEY (tenant_id, member_id) REFERENCES parties (tenant_id, id)
);
SELECT tessera_tenant_table('party_group_members');
CREATE INDEX party_group_members_member ON party_group_members (tenant_id, member_id);

-- Registrations of an organization (VAT number, LEI, ...): one (scheme, value) per tenant.
CREATE TABLE party_registrations (
  tenant_id           text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id                  uuid NOT NULL,
  party_id            uuid NOT NULL,
  scheme              text NOT NULL,
  value               text NOT NULL,
  issuing_authority   text,
  created_at          timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, scheme, value),
  FOREIGN KEY (tenant_id, party_id) REFERENCES parties (tenant_id, id)
);
SELECT tessera_tenant_table('party_registrations');
CREATE INDEX party_registrations_party ON party_registrations (tenant_id, party_id);

CREATE TABLE party_electronic_addresses (
  tenant_id     text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id            uuid NOT NULL,
  party_id      uuid NOT NULL,
  address_type  text NOT NULL CHECK (address_type IN ('EMAIL', 'PHONE', 'URI')),
  value         text NOT NULL,
  is_primary    boolean NOT NULL,
  verified      boolean NOT NULL,
  created_at    timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, party_id, address_type, value),
  FOREIGN KEY (tenant_id, party_id) REFERENCES parties (tenant_id, id)
);
SELECT tessera_tenant_table('party_electronic_addresses');
-- One primary address per type and party.
CREATE UNIQUE INDEX party_electronic_addresses_primary ON party_electronic_addresses (tenant_id, party_id, address_type)
  WHERE is_primary;

CREATE TABLE party_physical_addresses (
  tenant_id       text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id              uuid NOT NULL,
  party_id        uuid NOT NULL,
  address_type    text NOT NULL CHECK (address_type IN ('HOME', 'WORK', 'POSTAL', 'REGISTERED', 'OTHER')),
  street_lines    jsonb NOT NULL CHECK (jsonb_typeof(street_lines) = 'array'),
  locality        text,
  region          text,
  postal_code     text,
  country_code    text NOT NULL CHECK (country_code ~ '^[A-Z]{2}$'),
  is_primary      boolean NOT NULL,
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, party_id) REFERENCES parties (tenant_id, id)
);
SELECT tessera_tenant_table('party_physical_addresses');
CREATE INDEX party_physical_addresses_party ON party_physical_addresses (tenant_id, party_id);
CREATE UNIQUE INDEX party_physical_addresses_primary ON party_physical_addresses (tenant_id, party_id, address_type)
  WHERE is_primary;

-- Login configuration of a service (001 §2.5).
CREATE TABLE party_service_login_configs (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  service_id   uuid NOT NULL,
  config       jsonb NOT NULL,
  updated_at   timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, service_id),
  FOREIGN KEY (tenant_id, service_id) REFERENCES parties (tenant_id, id)
);
SELECT tessera_tenant_table('party_service_login_configs');

-- Relationship types a tenant registered beyond the seeded catalog (domain/relationship-types.ts).
CREATE TABLE party_relationship_types (
  tenant_id    text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  code         text NOT NULL,
  description  text,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, code)
);
SELECT tessera_tenant_table('party_relationship_types');

CREATE TABLE party_relationships (
  tenant_id          text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id                 uuid NOT NULL,
  from_party_id      uuid NOT NULL,
  to_party_id        uuid NOT NULL,
  relationship_type  text NOT NULL,
  valid_from         timestamptz,
  valid_to           timestamptz,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  deleted_at         timestamptz,
  PRIMARY KEY (tenant_id, id),
  CHECK (valid_from IS NULL OR valid_to IS NULL OR valid_from < valid_to),
  FOREIGN KEY (tenant_id, from_party_id) REFERENCES parties (tenant_id, id),
  FOREIGN KEY (tenant_id, to_party_id) REFERENCES parties (tenant_id, id)
);
SELECT tessera_tenant_table('party_relationships');
CREATE INDEX party_relationships_from ON party_relationships (tenant_id, from_party_id) WHERE deleted_at IS NULL;
CREATE INDEX party_relationships_to ON party_relationships (tenant_id, to_party_id) WHERE deleted_at IS NULL;

-- Identity-to-application bindings (001 §2.5): the identity is the identity store's (internal identity id).
CREATE TABLE party_identity_applications (
  tenant_id               text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  identity_id             uuid NOT NULL,
  application_id          text NOT NULL,
  capabilities            jsonb NOT NULL CHECK (jsonb_typeof(capabilities) = 'array'),
  authentication_methods  jsonb NOT NULL CHECK (jsonb_typeof(authentication_methods) = 'array'),
  application_role        text,
  valid_from              timestamptz,
  valid_to                timestamptz,
  created_at              timestamptz NOT NULL,
  updated_at              timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, identity_id, application_id),
  CHECK (valid_from IS NULL OR valid_to IS NULL OR valid_from < valid_to)
);
SELECT tessera_tenant_table('party_identity_applications');

-- ISO 8601 in UTC with milliseconds, as the API shows every timestamp (independent of the session's TimeZone).
CREATE FUNCTION party_iso(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $fn$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$fn$;
