import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateWebhookSecret, verifyWebhook } from '@tessera/platform';

/** What a connector received: the verified Standard Webhooks id and the parsed body. */
export interface ReceivedInvocation {
  webhookId: string;
  raw: string;
  body: {
    type: string;
    data: {
      invocation_id: string;
      correlation_id: string;
      connector_id: string;
      phase: string;
      mode: string;
      connector_fields: Record<string, string>;
      callback_url: string;
    };
  };
}

export type ConnectorBehaviour = (
  invocation: ReceivedInvocation,
) => { status: number; body?: unknown } | Promise<{ status: number; body?: unknown }>;

/**
 * A connector as a real HTTP server on loopback: it checks the Standard Webhooks signature of each request under
 * its secret (an unsigned or wrongly signed request is answered 401 and not recorded) and answers by `behave`.
 */
export interface TestConnector {
  connectorId: string;
  url: string;
  origin: string;
  secret: string;
  received: ReceivedInvocation[];
  behave: ConnectorBehaviour;
  close(): Promise<void>;
}

export async function startConnector(connectorId: string, behave: ConnectorBehaviour): Promise<TestConnector> {
  const secret = generateWebhookSecret();
  const connector: TestConnector = {
    connectorId,
    url: '',
    origin: '',
    secret,
    received: [],
    behave,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let webhookId: string;
      try {
        webhookId = verifyWebhook(secret, req.headers, raw).id;
      } catch {
        res.writeHead(401).end();
        return;
      }
      const invocation = { webhookId, raw, body: JSON.parse(raw) as ReceivedInvocation['body'] };
      connector.received.push(invocation);
      void Promise.resolve(connector.behave(invocation)).then((answer) => {
        const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  connector.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  connector.url = `${connector.origin}/invoke`;
  return connector;
}

/** A synchronous answer: one group of this connector in the invocation's phase. */
export const answerWith =
  (attributes: Record<string, unknown>, connectorFields: Record<string, string> = {}): ConnectorBehaviour =>
  (invocation) => ({
    status: 200,
    body: {
      groups: [
        {
          contributorId: invocation.body.data.connector_id,
          phase: invocation.body.data.phase,
          connectorFields,
          attributes: Object.entries(attributes).map(([path, value]) => ({ path, value })),
        },
      ],
    },
  });
