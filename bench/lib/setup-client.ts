/**
 * The requests a bench server sends itself to seed what a scenario needs (lists, designs, sessions), over HTTP to
 * its own listening socket, in the shape of Fastify's `inject` answers.
 *
 * Not `app.inject`: requests injected into the process leave its request path slower for the real requests that
 * follow. Measured 2026-11-27 on the status-lists bench server: after 1,000 injected GETs of a constant route,
 * the same route cost 66 µs of CPU per real request in each of three runs, against 26–49 µs in eleven runs
 * without them (or with the same requests sent over the socket), and every figure of the server carried that.
 * Why was not established; a likely cause is the request path's code specialised on light-my-request's request
 * and response objects before it met the socket's. Seeding over the socket warms it as production traffic does.
 */
export interface SetupRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON (with `content-type: application/json` unless headers name one); a string as is. */
  payload?: unknown;
}

export interface SetupResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  json<T = Record<string, unknown>>(): T;
}

export type SetupClient = (request: SetupRequest) => Promise<SetupResponse>;

/** A client for the server listening at `baseUrl` (its own address). */
export function setupClient(baseUrl: string): SetupClient {
  return async ({ method, url, headers = {}, payload }) => {
    const sent: Record<string, string> = { ...headers };
    let body: string | undefined;
    if (typeof payload === 'string') body = payload;
    else if (payload !== undefined) {
      body = JSON.stringify(payload);
      if (!Object.keys(sent).some((name) => name.toLowerCase() === 'content-type')) {
        sent['content-type'] = 'application/json';
      }
    }
    const response = await fetch(new URL(url, baseUrl), { method, headers: sent, body });
    const text = await response.text();
    return {
      statusCode: response.status,
      headers: Object.fromEntries(response.headers),
      body: text,
      json: <T>() => JSON.parse(text) as T,
    };
  };
}
