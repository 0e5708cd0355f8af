import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server, type TLSSocket } from 'node:tls';

/** PEM material of a test PKI made by the openssl command line: a CA, a collector for 127.0.0.1, a sender. */
export interface TestPki {
  ca: string;
  server: { cert: string; key: string };
  client: { cert: string; key: string };
}

/** A CA and two leaf certificates signed by it (EC P-256), written and read back through a temporary folder. */
export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-pki-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  try {
    const ecKey = (name: string) => run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', name);
    ecKey('ca.key');
    run('req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=Tessera test CA', '-days', '1', '-out', 'ca.pem');
    const leaf = (name: string, subject: string, ext: string) => {
      ecKey(`${name}.key`);
      run('req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`);
      writeFileSync(join(dir, `${name}.ext`), ext);
      run(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '1',
        '-extfile',
        `${name}.ext`,
        '-out',
        `${name}.pem`,
      );
      // openssl writes EC keys as SEC1; Node reads both.
      return {
        cert: readFileSync(join(dir, `${name}.pem`), 'utf8'),
        key: readFileSync(join(dir, `${name}.key`), 'utf8'),
      };
    };
    const server = leaf('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    const client = leaf('client', '/CN=tessera-sender', 'extendedKeyUsage=clientAuth\n');
    return { ca: readFileSync(join(dir, 'ca.pem'), 'utf8'), server, client };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A syslog-over-TLS collector (RFC 5425) that parses octet-counted frames. */
export interface SyslogCollector {
  /** `syslog-tls://127.0.0.1:<port>` */
  url: string;
  messages: string[];
  /** The client certificates' subjects seen, one per connection. */
  peers: string[];
  connections: number;
  /** Closes every open connection (the collector restarts its sessions); the listener stays. */
  dropConnections(): void;
  close(): Promise<void>;
}

export async function startSyslogCollector(
  pki: Pick<TestPki, 'server'> & { ca?: string },
  options: { requireClientCert?: boolean } = {},
): Promise<SyslogCollector> {
  const messages: string[] = [];
  const peers: string[] = [];
  const sockets = new Set<TLSSocket>();
  let connections = 0;
  const server: Server = createServer(
    {
      cert: pki.server.cert,
      key: pki.server.key,
      ...(options.requireClientCert ? { ca: pki.ca, requestCert: true, rejectUnauthorized: true } : {}),
    },
    (socket) => {
      connections++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      const subject = socket.getPeerCertificate()?.subject?.CN;
      if (subject) peers.push(String(subject));
      let buffer = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        buffer = Buffer.concat([buffer, chunk]);
        // RFC 5425 §4.3: MSG-LEN SP SYSLOG-MSG, repeated.
        for (;;) {
          const space = buffer.indexOf(0x20);
          if (space < 0) return;
          const length = Number(buffer.subarray(0, space).toString('ascii'));
          if (!Number.isInteger(length) || length <= 0) {
            socket.destroy();
            return;
          }
          if (buffer.length < space + 1 + length) return;
          messages.push(buffer.subarray(space + 1, space + 1 + length).toString('utf8'));
          buffer = buffer.subarray(space + 1 + length);
        }
      });
    },
  );
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `syslog-tls://127.0.0.1:${port}`,
    messages,
    peers,
    get connections() {
      return connections;
    },
    dropConnections: () => {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
