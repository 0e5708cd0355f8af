import { describe, expect, it } from 'vitest';
import { flattenGroups } from './contribution.js';

describe('flattening contributed groups (001 §2.2)', () => {
  it('makes attribute records with provenance from sets and attributes; connector fields stay apart', () => {
    const flat = flattenGroups([
      {
        contributorId: 'kyc',
        phase: 'OID4VCI_START',
        connectorFields: { ticket: 'T-1' },
        semanticAttributeSets: [{ bundleId: 'person.v1', values: { given_name: 'Ada', age: 36 } }],
        attributes: [{ path: 'address.city', value: 'London' }],
      },
    ]);
    expect(flat.attributes).toEqual([
      { path: 'given_name', value: 'Ada', contributorId: 'kyc', phase: 'OID4VCI_START', bundleId: 'person.v1' },
      { path: 'age', value: 36, contributorId: 'kyc', phase: 'OID4VCI_START', bundleId: 'person.v1' },
      { path: 'address.city', value: 'London', contributorId: 'kyc', phase: 'OID4VCI_START', bundleId: null },
    ]);
    expect(flat.connectorFields).toEqual([
      { name: 'ticket', value: 'T-1', contributorId: 'kyc', phase: 'OID4VCI_START' },
    ]);
    expect(flat.contributors).toEqual([{ contributorId: 'kyc', phase: 'OID4VCI_START' }]);
  });

  it('refuses an unknown phase, and a phase other than the pinned one', () => {
    expect(() => flattenGroups([{ contributorId: 'a', phase: 'LATER' }])).toThrow(/lifecycle phase/);
    expect(() => flattenGroups([{ contributorId: 'a', phase: 'OID4VCI_START' }], 'OID4VCI_DEFERRED')).toThrow(
      /OID4VCI_DEFERRED only/,
    );
    expect(flattenGroups([{ contributorId: 'a', phase: 'OID4VCI_DEFERRED' }], 'OID4VCI_DEFERRED').contributors).toEqual(
      [{ contributorId: 'a', phase: 'OID4VCI_DEFERRED' }],
    );
  });
});
