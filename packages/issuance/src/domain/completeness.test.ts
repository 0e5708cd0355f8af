import { describe, expect, it } from 'vitest';
import { allComplete, evaluateCompleteness } from './completeness.js';
import { normalizePipeline } from './pipeline.js';

const pipeline = normalizePipeline({
  pipelineId: 'p',
  invocationBindings: [],
  expectedInitialConnectorFields: [],
  manualApproval: false,
  claimsBindings: [
    {
      credentialConfigurationId: 'pid',
      deferrable: false,
      claims: [
        { attributePath: 'person.given_name', claimPath: 'given_name', required: true },
        { attributePath: 'person.family_name', required: true },
        { attributePath: 'person.nickname', required: false },
      ],
    },
    { credentialConfigurationId: 'badge', deferrable: true, claims: [{ attributePath: 'org.role', required: true }] },
  ],
});

describe('completeness per credential binding (001 §4.2)', () => {
  it('lists the missing required claims by claim path; optional claims are never missing', () => {
    const result = evaluateCompleteness(pipeline, new Set(['person.given_name']));
    expect(result).toEqual([
      { credentialConfigurationId: 'pid', complete: false, deferrable: false, missingClaims: ['person.family_name'] },
      { credentialConfigurationId: 'badge', complete: false, deferrable: true, missingClaims: ['org.role'] },
    ]);
    expect(allComplete(result)).toBe(false);
  });

  it('is complete when every required attribute is present', () => {
    const result = evaluateCompleteness(pipeline, new Set(['person.given_name', 'person.family_name', 'org.role']));
    expect(result.every((r) => r.complete && r.missingClaims.length === 0)).toBe(true);
    expect(allComplete(result)).toBe(true);
  });

  it('refuses a credential bound twice and a claim bound twice', () => {
    const base = { pipelineId: 'p', invocationBindings: [], expectedInitialConnectorFields: [], manualApproval: false };
    const binding = { credentialConfigurationId: 'x', deferrable: false, claims: [] };
    expect(() => normalizePipeline({ ...base, claimsBindings: [binding, binding] })).toThrow(/only once/);
    const claim = { attributePath: 'a', required: true };
    expect(() => normalizePipeline({ ...base, claimsBindings: [{ ...binding, claims: [claim, claim] }] })).toThrow(
      /only once/,
    );
  });
});
