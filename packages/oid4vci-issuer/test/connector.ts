import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestConnector {
  connectorId: string;
  url: string;
  origin: string;
  secret: string;
  /** The invocations received (parsed bodies). */
  received: {
    data: { correlation_id: string; phase: string; callback_url: string; connector_fields: Record<string, string> };
  }[];
  close(): Promise<void>;
}

/** A connector that answers every invocation with 202: it will call back later (001 §4.2 callback ingress). */
export async function startDeferringConnector(connectorId: string): Promise<TestConnector> {
  const received: TestConnector['received'] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      received.push(JSON.parse(text) as TestConnector['received'][number]);
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    connectorId,
    url: `${origin}/invoke`,
    origin,
    secret: `whsec_${Buffer.from('connector-secret-connector-secret').toString('base64')}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
