import { expect } from 'vitest';
import { RP_REDIRECT } from '../support/harness.js';

/** The redirect URIs registered for the test clients at both servers. */
const CLIENT_REDIRECTS = new Set([RP_REDIRECT, 'http://127.0.0.1:8401/callback', 'http://127.0.0.1/callback']);

/**
 * What one server did with one request, reduced to what the standards decide: the status, the error code, whether
 * and where the browser is sent, what the redirect carries, and the authentication challenge.
 */
export interface Observation {
  status: number;
  /** `error` of the JSON body, or of the redirect to the client; null when there is none. */
  error: string | null;
  /** none: an answer to the caller; client: to the client's redirect URI; login: anywhere else (a login step). */
  redirect: 'none' | 'client' | 'login';
  /** Where a client redirect carries its parameters. */
  via?: 'query' | 'fragment';
  /** `state` of a client redirect, exactly as received. */
  state?: string | null;
  /** `iss` of a client redirect (RFC 9207): the answering server's own issuer, absent, or something else. */
  iss?: 'own' | 'absent' | 'other';
  /** Whether a client redirect carries a code. */
  code?: boolean;
  /** The scheme of WWW-Authenticate, null when the header is absent. */
  scheme?: string | null;
  /** The `error` attribute of WWW-Authenticate (RFC 6750 §3), null when absent. */
  challengeError?: string | null;
  /** `active` of an introspection answer. */
  active?: boolean;
}

export type Expected = Partial<Observation>;

export type Verdict =
  /** Both servers answer alike, and as `expect` says. */
  | { verdict: 'agree'; expect: Expected }
  /** Both conform to the standards but answer differently: our answer is what our specification or an RFC says. */
  | { verdict: 'differs'; ours: Expected; oracle: Expected; why: string }
  /** Our server should answer like the oracle: `ours` is the expected answer, failing until src follows. */
  | { verdict: 'divergence'; ours: Expected; oracle: Expected; fix: string };

function challenge(header: string | null): Pick<Observation, 'scheme' | 'challengeError'> {
  if (!header) return { scheme: null, challengeError: null };
  const scheme = header.trim().split(/\s+/)[0] ?? '';
  return { scheme, challengeError: /\berror="([^"]*)"/.exec(header)?.[1] ?? null };
}

async function jsonBody(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (!text) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return { raw: text };
  }
}

/** An answer of the authorization endpoint: an error page, a redirect to the client, or a redirect to a login. */
export async function observeAuthorize(res: Response, issuer: string): Promise<Observation> {
  const location = res.headers.get('location');
  if (res.status >= 300 && res.status < 400 && location) {
    const url = new URL(location, issuer);
    if (!CLIENT_REDIRECTS.has(`${url.origin}${url.pathname}`))
      return { status: res.status, error: null, redirect: 'login' };
    const fragment = new URLSearchParams(url.hash.slice(1));
    const via = url.search === '' && url.hash !== '' ? 'fragment' : 'query';
    const params = via === 'fragment' ? fragment : url.searchParams;
    const iss = params.get('iss');
    return {
      status: res.status,
      error: params.get('error'),
      redirect: 'client',
      via,
      state: params.get('state'),
      iss: iss === null ? 'absent' : iss === issuer ? 'own' : 'other',
      code: params.has('code'),
    };
  }
  const body = await jsonBody(res);
  return { status: res.status, error: typeof body.error === 'string' ? body.error : null, redirect: 'none' };
}

/** An answer of the token, introspection, revocation or userinfo endpoint. */
export async function observeJson(res: Response): Promise<Observation & { body: Record<string, unknown> }> {
  const body = await jsonBody(res);
  return {
    status: res.status,
    error: typeof body.error === 'string' ? body.error : null,
    redirect: 'none',
    ...challenge(res.headers.get('www-authenticate')),
    ...(typeof body.active === 'boolean' ? { active: body.active } : {}),
    body,
  };
}

const pick = (o: Observation, keys: readonly string[]): Expected =>
  Object.fromEntries(keys.map((k) => [k, (o as unknown as Record<string, unknown>)[k]])) as Expected;

function describeObservation(o: Observation): string {
  if (o.redirect === 'login') return `${o.status} → login`;
  if (o.redirect === 'client') {
    const carried = [
      o.code ? 'code' : null,
      o.state !== null ? `state=${JSON.stringify(o.state)}` : null,
      o.iss === 'own' ? 'iss' : o.iss === 'other' ? 'iss≠' : null,
    ].filter(Boolean);
    return `${o.status} → client ${o.via === 'fragment' ? '#' : '?'}error=${o.error ?? '-'} ${carried.join(' ')}`.trim();
  }
  const parts = [String(o.status), o.error ?? (o.active !== undefined ? `active=${o.active}` : 'ok')];
  if (o.scheme) parts.push(`[${o.scheme}${o.challengeError ? ` error=${o.challengeError}` : ''}]`);
  return parts.join(' ');
}

interface Row {
  case: string;
  'oidc-provider': string;
  ours: string;
  verdict: string;
}

/** The agreement table of one test file, printed when the file ends. */
export class AgreementTable {
  private readonly rows: Row[] = [];

  constructor(private readonly title: string) {}

  /**
   * Records the pair and asserts the verdict: for `agree`, each server's answer on the expected fields equals the
   * expectation (so they equal each other); otherwise each server's answer matches its own expectation.
   */
  check(name: string, ours: Observation, oracle: Observation, v: Verdict): void {
    this.rows.push({
      case: name,
      'oidc-provider': describeObservation(oracle),
      ours: describeObservation(ours),
      verdict:
        v.verdict === 'agree'
          ? 'agree'
          : v.verdict === 'differs'
            ? `differs (ours per ${v.why.split(':')[0]})`
            : 'DIVERGENCE',
    });
    if (v.verdict === 'agree') {
      const keys = Object.keys(v.expect);
      expect({ 'oidc-provider': pick(oracle, keys), ours: pick(ours, keys) }).toEqual({
        'oidc-provider': v.expect,
        ours: v.expect,
      });
      return;
    }
    expect(pick(oracle, Object.keys(v.oracle)), 'oidc-provider').toEqual(v.oracle);
    expect(pick(ours, Object.keys(v.ours)), 'ours').toEqual(v.ours);
  }

  /** A plain-text table (console.table would colour its cells in a terminal and garble CI logs). */
  print(): void {
    const columns = ['case', 'oidc-provider', 'ours', 'verdict'] as const;
    // Control characters (a state of the VSCHAR cases) are shown escaped, so that every row stays on one line.
    const cell = (s: string) =>
      [...s].map((c) => (c.charCodeAt(0) < 0x20 ? JSON.stringify(c).slice(1, -1) : c)).join('');
    const widths = columns.map((c) => Math.max(c.length, ...this.rows.map((r) => cell(r[c]).length)));
    const line = (values: readonly string[]) => `| ${values.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
    const out = [
      `Differential: ${this.title} (${this.rows.length} cases)`,
      line(columns),
      `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
      ...this.rows.map((r) => line(columns.map((c) => cell(r[c])))),
    ];
    // eslint-disable-next-line no-console -- the agreement table is what this test reports (issue 3).
    console.log(`\n${out.join('\n')}\n`);
  }
}
