import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoleApp, type RoleApp } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import {
  createTestIssuer,
  createTestWallet,
  issueCredentialToWallet,
  type StatusListServer,
  type TestIssuer,
  type TestWallet,
} from '@tessera/test-wallet';
import { buildBridgeApp, startTestBed, type BridgeApp, type BridgeTestBed } from './support/bridge-app.js';
import {
  bindKnownHolder,
  bridgeConfigFor,
  holderKeyOf,
  PERSON,
  sessionCalls,
  type SessionCalls,
} from './support/wallet-flow.js';

/** The value of one series in a text exposition, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.lastIndexOf('}'));
    const has = Object.entries(labels).every(([k, v]) => body.split(',').includes(`${k}="${v}"`));
    if (has) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

/**
 * Issue 15 item 6 (001 §4.5): verifier query metrics (presentations by query id and result, verification duration)
 * and key-management call duration by operation, read from /metrics of the management listener.
 */
describe.each(DATABASE_KINDS)('verifier and key-management metrics on /metrics (%s)', (kind) => {
  let bed: BridgeTestBed;
  let issuer: TestIssuer;
  let statusServer: StatusListServer;
  let b: BridgeApp;
  let management: RoleApp;
  let calls: SessionCalls;
  let wallet: TestWallet;

  beforeAll(async () => {
    bed = await startTestBed(kind);
    issuer = await createTestIssuer();
    statusServer = await issuer.statusListServer();
    b = await buildBridgeApp(bed.t.platform, { listen: true, bridge: bridgeConfigFor(issuer, statusServer.url) });
    management = await createRoleApp(bed.t.platform, {
      role: 'management',
      title: 'Test management',
      family: 'oauth',
      operational: 'all',
    });
    await management.ready();
    calls = sessionCalls(b, bed.portalToken, bed.tokenServiceToken);
    wallet = await createTestWallet();
    await issueCredentialToWallet(issuer, wallet, { format: 'dc+sd-jwt', claims: PERSON });
    await bindKnownHolder(bed.t.platform, b.identities, await holderKeyOf(wallet.holderJwk));
  });
  afterAll(async () => {
    await management?.close();
    await b?.close();
    await issuer?.close();
    await bed?.close();
  });

  const metrics = async () => {
    const res = await management.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    return res.body;
  };

  it('counts presentations by query id and result, with their verification time', async () => {
    const q = { query_id: 'wallet-login' };
    const before = await metrics();
    const { requestUri } = await calls.create();
    expect((await wallet.respond(requestUri, { wrongNonce: true })).status).toBe(400);
    expect((await wallet.respond(requestUri)).status).toBe(200);

    const after = await metrics();
    const delta = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(delta('verifier_presentations_total', { ...q, result: 'verified' })).toBe(1);
    expect(delta('verifier_presentations_total', { ...q, result: 'rejected' })).toBe(1);
    expect(delta('verifier_verification_duration_seconds_count', { ...q, result: 'verified' })).toBe(1);
    expect(delta('verifier_verification_duration_seconds_count', { ...q, result: 'rejected' })).toBe(1);
    expect(sample(after, 'verifier_verification_duration_seconds_sum', { ...q, result: 'verified' })).toBeGreaterThan(
      0,
    );
    expect(after).toContain('# TYPE verifier_verification_duration_seconds histogram');
  });

  it('times key-management calls by operation', async () => {
    const text = await metrics();
    expect(text).toContain('# TYPE kms_call_duration_seconds histogram');
    // The request objects above were signed through the key manager.
    const signs = sample(text, 'kms_call_duration_seconds_count', { operation: 'sign', result: 'success' });
    expect(signs).toBeGreaterThan(0);
    expect(signs).toBe(sample(text, 'kms_calls_total', { operation: 'sign', result: 'success' }));
    expect(sample(text, 'kms_call_duration_seconds_bucket', { operation: 'sign', result: 'success', le: '+Inf' })).toBe(
      signs,
    );
  });
});
