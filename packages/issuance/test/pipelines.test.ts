import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { startIssuanceBed, unique, type IssuanceBed } from './support/bed.js';

/** Pipeline configurations stored per tenant (001 §2.2) through the admin API. */
describe.each(DATABASE_KINDS)('pipeline configurations (%s)', (kind) => {
  let bed: IssuanceBed;
  beforeAll(async () => {
    bed = await startIssuanceBed(kind);
  }, 120_000);
  afterAll(async () => bed?.close());

  const config = (pipelineId: string) => ({
    pipelineId,
    invocationBindings: [{ connectorId: 'kyc', phase: 'OID4VCI_START', inputConnectorFields: ['ticket'] }],
    claimsBindings: [{ credentialConfigurationId: 'pid', claims: [{ attributePath: 'given_name' }] }],
    expectedInitialConnectorFields: ['ticket'],
  });

  it('creates (201, defaults filled in), gets, lists and replaces a pipeline', async () => {
    const id = unique('pipe');
    const created = await bed.call('POST', '/pipelines', { body: config(id) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      pipelineId: id,
      invocationBindings: [
        {
          connectorId: 'kyc',
          phase: 'OID4VCI_START',
          inputConnectorFields: ['ticket'],
          required: true,
          mode: 'SYNCHRONOUS',
        },
      ],
      claimsBindings: [
        {
          credentialConfigurationId: 'pid',
          deferrable: false,
          claims: [{ attributePath: 'given_name', claimPath: 'given_name', required: true }],
        },
      ],
      expectedInitialConnectorFields: ['ticket'],
      manualApproval: false,
    });
    expect((await bed.call('GET', `/pipelines/${id}`)).body).toEqual(created.body);
    const listed = await bed.call('GET', '/pipelines', { token: bed.tokens.readerA });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((p: { pipelineId: string }) => p.pipelineId)).toContain(id);

    const replaced = await bed.call('PUT', `/pipelines/${id}`, { body: { ...config(id), manualApproval: true } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.manualApproval).toBe(true);
    expect((await bed.call('GET', `/pipelines/${id}`)).body.manualApproval).toBe(true);
  });

  it('refuses a duplicate id (409), an unknown id (404), a body naming another id and malformed bodies (400)', async () => {
    const id = unique('pipe');
    expect((await bed.call('POST', '/pipelines', { body: config(id) })).status).toBe(201);
    const again = await bed.call('POST', '/pipelines', { body: config(id) });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'ALREADY_EXISTS_ERROR' });
    expect((await bed.call('GET', `/pipelines/${unique('none')}`)).body).toMatchObject({ code: 'NOT_FOUND_ERROR' });
    const other = unique('other');
    const mismatch = await bed.call('PUT', `/pipelines/${id}`, { body: config(other) });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'pipelineId' });
    expect((await bed.call('PUT', `/pipelines/${other}`, { body: config(other) })).status).toBe(404);

    const badPhase = { ...config(unique('p')), invocationBindings: [{ connectorId: 'kyc', phase: 'LATER' }] };
    expect((await bed.call('POST', '/pipelines', { body: badPhase })).body).toMatchObject({
      code: 'ILLEGAL_ARGUMENT_ERROR',
    });
    const extra = { ...config(unique('p')), surprise: true };
    expect((await bed.call('POST', '/pipelines', { body: extra })).status).toBe(400);
    const twice = {
      ...config(unique('p')),
      claimsBindings: [
        { credentialConfigurationId: 'pid', claims: [] },
        { credentialConfigurationId: 'pid', claims: [] },
      ],
    };
    expect((await bed.call('POST', '/pipelines', { body: twice })).status).toBe(400);
    expect((await bed.call('POST', '/pipelines', { body: '{"pipelineId":' })).status).toBe(400);
  });

  it('lets only tenant administrators write, and keeps each tenant to its own pipelines', async () => {
    const id = unique('pipe');
    const denied = await bed.call('POST', '/pipelines', { body: config(id), token: bed.tokens.readerA });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'POLICY_DENIED' });
    expect((await bed.call('POST', '/pipelines', { body: config(id), token: null })).status).toBe(401);
    expect((await bed.call('POST', '/pipelines', { body: config(id) })).status).toBe(201);
    expect((await bed.call('GET', `/pipelines/${id}`, { token: bed.tokens.adminB })).status).toBe(404);
    // The same id is free in another tenant.
    expect((await bed.call('POST', '/pipelines', { body: config(id), token: bed.tokens.adminB })).status).toBe(201);
  });
});
