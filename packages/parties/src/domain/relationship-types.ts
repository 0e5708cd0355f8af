/**
 * The relationship type catalog (001 §2.5: "a registered catalog"). Every tenant starts with these; a tenant
 * administrator registers more (POST /relationship-types). Codes are snake_case.
 */
export const SEEDED_RELATIONSHIP_TYPES: readonly { code: string; description: string }[] = [
  { code: 'employed_by', description: 'A person is employed by an organization.' },
  { code: 'member_of', description: 'A party is a member of an organization or unit.' },
  { code: 'same_entity', description: 'Two records describe the same real-world party.' },
  { code: 'part_of', description: 'An organization or unit is part of another.' },
  { code: 'manages', description: 'A party manages another.' },
  { code: 'represents', description: 'A party acts on behalf of another.' },
  { code: 'operated_by', description: 'A service is operated by an organization.' },
];

export const RELATIONSHIP_TYPE_PATTERN = '^[a-z][a-z0-9_]{1,63}$';

export const isSeededRelationshipType = (code: string) => SEEDED_RELATIONSHIP_TYPES.some((t) => t.code === code);
