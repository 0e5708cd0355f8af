import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { serverInDataDir } from './server-setup.js';
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
export function tokenSetup(
  server: string,
  mode: 'exchange' | 'refresh',
  context: SetupContext,
): Promise<ScenarioSetup> {
  return serverInDataDir(server, context, { env: { BENCH_TOKEN_MODE: mode } }, async (child, dataDir) => {
    const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as TokenBenchCredentials;
    return {
      url: child.url,
      requests:
        mode === 'exchange'
          ? exchangeRequests(credentials.codes ?? [])
          : refreshRequests(credentials.refreshTokens ?? []),
    };
  });
}
