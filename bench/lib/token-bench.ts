import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { spawnServer } from './http.js';
import type { ScenarioSetup, SetupContext } from './types.js';

/** The confidential client of the token benchmarks (same client, secret and verifier on both servers). */
export const BENCH_CLIENT = 'bench-rp';
export const BENCH_SECRET = 'bench-rp-secret';
export const BENCH_REDIRECT = 'http://127.0.0.1:8400/callback';
/** One PKCE verifier for every pre-minted code (each code still carries its own challenge check). */
export const BENCH_VERIFIER = 'bench-verifier-0123456789-abcdefghijklmnopqrstuvwxyz';

export interface TokenBenchCredentials {
  codes?: string[];
  refreshTokens?: string[];
}

const basic = `Basic ${Buffer.from(`${BENCH_CLIENT}:${BENCH_SECRET}`).toString('base64')}`;
const headers = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };

/** Each request redeems the next unused authorization code. */
function exchangeRequests(codes: string[]): autocannon.Request[] {
  let next = 0;
  return [
    {
      method: 'POST',
      path: '/token',
      headers,
      setupRequest: (req) => {
        const code = codes[next++ % codes.length]!;
        return {
          ...req,
          body: `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(BENCH_REDIRECT)}&code_verifier=${BENCH_VERIFIER}`,
        };
      },
    },
  ];
}

/**
 * Each request redeems the next unused refresh token (one per pre-minted grant). Chaining each connection's
 * rotated token is not possible: the load generator prepares a connection's next request before the previous
 * response arrives, so it would present the old token, which rotation (rightly) treats as reuse.
 */
function refreshRequests(tokens: string[]): autocannon.Request[] {
  let next = 0;
  return [
    {
      method: 'POST',
      path: '/token',
      headers,
      setupRequest: (req) => ({
        ...req,
        body: `grant_type=refresh_token&refresh_token=${tokens[next++ % tokens.length]}`,
      }),
    },
  ];
}

/** Setup of a token scenario against `bench/servers/<server>.ts` in `mode` (exchange or refresh). */
export async function tokenSetup(
  server: string,
  mode: 'exchange' | 'refresh',
  context: SetupContext,
): Promise<ScenarioSetup> {
  const dataDir = await mkdtemp(join(tmpdir(), `tessera-bench-${server}-`));
  try {
    const child = await spawnServer(server, {
      pin: context.pin,
      cpuProfDir: context.cpuProfDir,
      env: { BENCH_DATA_DIR: dataDir, BENCH_TOKEN_MODE: mode },
    });
    const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as TokenBenchCredentials;
    return {
      url: child.url,
      serverPid: child.pid,
      requests:
        mode === 'exchange'
          ? exchangeRequests(credentials.codes ?? [])
          : refreshRequests(credentials.refreshTokens ?? []),
      async teardown() {
        await child.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
