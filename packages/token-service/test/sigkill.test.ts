import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import * as client from 'openid-client';
import { createPlatform, loadConfig, PlatformConfigSchema } from '@tessera/platform';
import { createPostgresTestDatabase, freePort, LogCapture } from '@tessera/platform/testing';
import { startDevIdentityProvider } from '@tessera/dev-idp';
import { hashToken } from '../src/domain/random.js';
import { migrations, RP_REDIRECT, RP_SECRET, type DevIdp } from './support/harness.js';
import { basic, postForm } from './support/codes.js';
import { UserAgent } from './support/user-agent.js';

const SCRIPT = join(import.meta.dirname, 'support/token-service-process.ts');

/** A token service process; `kill()` is SIGKILL: no shutdown hook, no drain, nothing flushed on the way out. */
interface Running {
  issuer: string;
  kill(): Promise<void>;
}

/**
 * Issue 13 §10: an acknowledged write survives SIGKILL of the process, on PostgreSQL. Each write below is
 * acknowledged by its HTTP answer; the process is then killed with SIGKILL at once, and a fresh process (or the
 * database itself) must hold the write: the session completion of a federated login (its code), the refresh
 * rotation (the new token works, the old one is spent), and the audit events of both (chained or staged, and
 * chained by the recovery into a chain that verifies).
 */
describe('acknowledged writes survive SIGKILL (postgres)', () => {
  let database: { url: string; drop(): Promise<void> };
  let idp: DevIdp;
  let port: number;
  const masterKey = randomBytes(32).toString('base64');
  const children: ChildProcess[] = [];

  async function start(): Promise<Running> {
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        MASTER_KEY: masterKey,
        PORT: String(port),
        IDP_ISSUER: idp.issuer,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const issuer = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the token service did not start:\n${output}`)), 60_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const ready = /READY (\S+)/.exec(output);
        if (ready) {
          clearTimeout(timer);
          resolve(ready[1]!);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      void exited.then(() => reject(new Error(`the token service exited:\n${output}`)));
    });
    return {
      issuer,
      async kill() {
        child.kill('SIGKILL');
        await exited;
        expect(child.signalCode).toBe('SIGKILL');
      },
    };
  }

  /** Reads the database directly, as the superuser: what is there does not depend on any process of ours. */
  async function query<R extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<R[]> {
    const c = new pg.Client({ connectionString: database.url });
    await c.connect();
    try {
      return (await c.query<R>(text, params)).rows;
    } finally {
      await c.end();
    }
  }

  /** The refresh command's success events, chained or still staged. */
  const refreshEvents = async () => {
    const [row] = await query<{ chained: number; staged: number }>(
      `SELECT (SELECT count(*)::int FROM audit_events
                WHERE command_id = 'token-service.token.refresh' AND result = 'success') AS chained,
              (SELECT count(*)::int FROM audit_pending
                WHERE event->>'commandId' = 'token-service.token.refresh') AS staged`,
    );
    return row!.chained + row!.staged;
  };

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    port = await freePort();
    idp = await startDevIdentityProvider({
      port: 0,
      clients: [
        {
          clientId: 'tessera-federation',
          clientSecret: 'federation-secret',
          redirectUris: [`http://127.0.0.1:${port}/federation/callback`],
        },
      ],
    });
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await idp?.close();
    await database?.drop();
  });

  it('keeps the completed login, the rotation and their audit events', async () => {
    let running = await start();
    const auth = { authorization: basic('demo-rp', RP_SECRET) };

    // Session completion: the login comes back from the provider and is acknowledged with a code.
    const rp = await client.discovery(new URL(running.issuer), 'demo-rp', RP_SECRET, undefined, {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const ua = new UserAgent();
    const page = await ua.follow(
      client.buildAuthorizationUrl(rp, {
        redirect_uri: RP_REDIRECT,
        scope: 'openid email offline_access',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: 'st-kill',
        nonce: 'n-kill',
      }).href,
      RP_REDIRECT,
    );
    const user = idp.users[0]!;
    const back = await ua.login(page as { url: string; response: Response }, user.username, user.password, RP_REDIRECT);
    const code = new URL(back.url).searchParams.get('code');
    expect(code).toBeTruthy();
    await running.kill();

    running = await start();
    const exchanged = await postForm(
      `${running.issuer}/token`,
      { grant_type: 'authorization_code', code: code!, redirect_uri: RP_REDIRECT, code_verifier: verifier },
      auth,
    );
    expect(exchanged.status).toBe(200);
    const first = exchanged.body.refresh_token as string;

    // Refresh rotation: acknowledged, then SIGKILL at once.
    const before = await refreshEvents();
    const rotated = await postForm(
      `${running.issuer}/token`,
      { grant_type: 'refresh_token', refresh_token: first },
      auth,
    );
    expect(rotated.status).toBe(200);
    await running.kill();

    // The rotation and its audit event are in the database with no process running.
    const [spent] = await query<{ rotated_at: Date | null }>(
      'SELECT rotated_at FROM oauth_refresh_tokens WHERE token_hash = $1',
      [hashToken(first)],
    );
    expect(spent?.rotated_at).not.toBeNull();
    const [successor] = await query<{ rotated_at: Date | null }>(
      'SELECT rotated_at FROM oauth_refresh_tokens WHERE token_hash = $1',
      [hashToken(rotated.body.refresh_token as string)],
    );
    expect(successor).toBeDefined();
    expect(await refreshEvents()).toBe(before + 1);

    running = await start();
    const next = await postForm(
      `${running.issuer}/token`,
      { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token as string },
      auth,
    );
    expect(next.status).toBe(200);
    await running.kill();

    // What a kill left staged is chained by the recovery (here run at once, rather than by the job), and the chain
    // of the tenant verifies.
    const platform = await createPlatform(
      loadConfig(PlatformConfigSchema, {
        env: {},
        overrides: { profile: 'test', database: { url: database.url }, keys: { masterKey } },
      }),
      { migrations, logDestination: new LogCapture() },
    );
    try {
      await platform.audit.recoverPending(-60);
      expect(await platform.audit.verify('demo')).toMatchObject({ ok: true });
      const [left] = await query<{ n: number }>('SELECT count(*)::int AS n FROM audit_pending');
      expect(left!.n).toBe(0);
      const [events] = await query<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_events WHERE command_id = 'token-service.token.refresh' AND result = 'success'`,
      );
      expect(events!.n).toBe(before + 2);
    } finally {
      await platform.close();
    }
  }, 240_000);
});
