import 'reflect-metadata';
import { createHash, webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as x509 from '@peculiar/x509';

/**
 * A local HTTPS server of published metadata examples (test/fixtures), with a self-signed certificate for
 * 127.0.0.1 made by @peculiar/x509. Answers ETag and Last-Modified, 304 on a matching If-None-Match, and counts
 * conditional requests. `{{origin}}` in a fixture becomes the server's origin, `{{integrity}}` the SRI hash of the
 * extended SD-JWT VC type metadata.
 */
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export interface FixtureServer {
  origin: string;
  /** The certificate, as the fetcher's extra trust anchor. */
  ca: string;
  /** Replaces (or adds) the document at a path; its ETag changes with it. */
  set(path: string, body: string, contentType?: string): void;
  requests: { path: string; conditional: boolean }[];
  close(): Promise<void>;
}

const FIXTURES: Record<string, [string, string]> = {
  '/.well-known/openid-credential-issuer': ['oid4vci-issuer-metadata.json', 'application/json'],
  '/vct/education': ['sd-jwt-vct-education.json', 'application/json'],
  '/vct/galactic-education-credential-0.9': ['sd-jwt-vct-galactic.json', 'application/json'],
  '/oca/student-card': ['oca-bundle.json', 'application/json'],
  '/credentials/3732': ['w3c-render-method.json', 'application/vc+ld+json'],
  '/schemas/email.json': ['json-schema.json', 'application/schema+json'],
};

export const fixtureText = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
export const sri = (body: string) => `sha256-${createHash('sha256').update(body).digest('base64')}`;

async function selfSigned(): Promise<{ cert: string; key: string }> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=127.0.0.1',
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 24 * 3600_000),
    keys: keys as unknown as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'],
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }]),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
  return { cert: certificate.toString('pem'), key };
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const { cert, key } = await selfSigned();
  const documents = new Map<string, { body: string; type: string; etag: string; modified: string }>();
  const requests: FixtureServer['requests'] = [];
  let version = 0;
  const set = (path: string, body: string, type = 'application/json') => {
    version++;
    documents.set(path, {
      body,
      type,
      etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`,
      modified: new Date(Date.UTC(2026, 0, 1) + version * 1000).toUTCString(),
    });
  };
  const server: Server = createServer({ cert, key }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const conditional = req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined;
    requests.push({ path, conditional });
    const doc = documents.get(path);
    if (!doc) {
      res.writeHead(404).end();
      return;
    }
    if (req.headers['if-none-match'] === doc.etag) {
      res.writeHead(304, { etag: doc.etag, 'last-modified': doc.modified }).end();
      return;
    }
    res.writeHead(200, { 'content-type': doc.type, etag: doc.etag, 'last-modified': doc.modified }).end(doc.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const parent = fixtureText('sd-jwt-vct-galactic.json');
  for (const [path, [file, type]] of Object.entries(FIXTURES)) {
    const body = fixtureText(file).replaceAll('{{origin}}', origin).replaceAll('{{integrity}}', sri(parent));
    set(path, body, type);
  }
  return {
    origin,
    ca: cert,
    set,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
