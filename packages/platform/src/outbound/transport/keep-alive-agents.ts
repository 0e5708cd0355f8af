import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

/**
 * How long an idle connection to a receiver is kept (issue 15 bench): below the keep-alive timeout of common
 * servers (Node 5 s, most proxies longer), so that a request rarely meets a connection the receiver is closing;
 * long enough that a busy destination reuses one connection for many deliveries instead of a handshake each.
 */
export const IDLE_SOCKET_MS = 1_000;

const agents = new Map<string, HttpAgent>();

/**
 * The process's keep-alive agent for a scheme and an SSRF standing. A pooled socket was opened through the pinned
 * lookup (pinned-lookup.ts), so it is connected to an address that passed the checks; a later request to the same
 * host and port may reuse it. Allow-listed and checked origins never share an agent: a socket opened without the
 * address rules (an allow-listed origin) is never handed to a request that must obey them.
 */
export function keepAliveAgent(protocol: string, allowed: boolean): HttpAgent {
  const key = `${protocol}|${allowed ? 'allow-listed' : 'checked'}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
    agent = protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    agents.set(key, agent);
  }
  return agent;
}
