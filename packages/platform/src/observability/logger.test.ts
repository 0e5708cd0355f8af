import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { createLogger, serializeError } from './logger.js';

/**
 * Logs never hold a token, secret, code or personal claim (001 §4.5, docs/conventions.md): fields that may carry
 * one are redacted by path, and errors are serialized without the fields where drivers put data.
 */

function capture(level = 'trace') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  const logger = createLogger({ level, service: 'logger-test', destination });
  return {
    logger,
    text: () => lines.join(''),
    records: () =>
      lines
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const SECRETS = {
  clientSecret: 'sentinel-client-secret-0001',
  token: 'sentinel-token-0002',
  accessToken: 'sentinel-access-token-0003',
  refreshToken: 'sentinel-refresh-token-0004',
  idToken: 'sentinel-id-token-0005',
  code: 'sentinel-authorization-code-0006',
  codeVerifier: 'sentinel-code-verifier-0007',
  authorization: 'Bearer sentinel-bearer-0008',
  cookie: 'session=sentinel-cookie-0009',
  email: 'sentinel.person@example.org',
  familyName: 'Sentinelsson',
  bodySecret: 'sentinel-body-secret-0010',
  headerAuthorization: 'Basic c2VudGluZWwtYmFzaWMtMDAxMQ==',
  password: 'sentinel-password-0012',
  vpToken: 'sentinel-vp-token-0013',
  privateKey: 'sentinel-private-key-0014',
  dpop: 'sentinel-dpop-proof-0015',
};

const REQUEST_SECRETS = { authorization: 'Bearer sentinel-req-bearer-0016', cookie: 'sid=sentinel-req-cookie-0017' };

const expectNoSecret = (text: string, values: readonly string[]) => {
  for (const value of values) expect(text).not.toContain(value);
};

describe('createLogger redaction', () => {
  it('redacts every secret-bearing field at the top level and one level down', () => {
    const { logger, text, records } = capture();
    logger.info(
      {
        client_secret: SECRETS.clientSecret,
        token: SECRETS.token,
        access_token: SECRETS.accessToken,
        refresh_token: SECRETS.refreshToken,
        id_token: SECRETS.idToken,
        code: SECRETS.code,
        code_verifier: SECRETS.codeVerifier,
        authorization: SECRETS.authorization,
        cookie: SECRETS.cookie,
        claims: { email: SECRETS.email, family_name: SECRETS.familyName },
        body: { client_secret: SECRETS.bodySecret, grant_type: 'authorization_code' },
        headers: {
          authorization: SECRETS.headerAuthorization,
          cookie: SECRETS.cookie,
          dpop: SECRETS.dpop,
          accept: 'application/json',
        },
        password: SECRETS.password,
        vp_token: SECRETS.vpToken,
        privateKey: SECRETS.privateKey,
        tenant_id: 'acme',
      },
      'token request received',
    );
    const output = text();
    expectNoSecret(output, Object.values(SECRETS));
    expect(output).toContain('[redacted]');
    const [record] = records();
    expect(record).toMatchObject({
      level: 'info',
      service: 'logger-test',
      msg: 'token request received',
      tenant_id: 'acme',
      client_secret: '[redacted]',
      claims: '[redacted]',
      body: { client_secret: '[redacted]', grant_type: 'authorization_code' },
      headers: { authorization: '[redacted]', cookie: '[redacted]', dpop: '[redacted]', accept: 'application/json' },
    });
  });

  it('redacts the request headers of a logged request', () => {
    const { logger, text, records } = capture();
    logger.info({ req: { method: 'POST', headers: { ...REQUEST_SECRETS } } }, 'request');
    expectNoSecret(text(), Object.values(REQUEST_SECRETS));
    expect(records()[0]).toMatchObject({
      req: { method: 'POST', headers: { authorization: '[redacted]', cookie: '[redacted]' } },
    });
  });

  it('redacts nested secret fields whatever the level', () => {
    const { logger, text } = capture('trace');
    const fields = {
      upstream: { access_token: SECRETS.accessToken, id_token: SECRETS.idToken },
      client: { clientSecret: SECRETS.clientSecret },
    };
    logger.trace(fields, 'trace line');
    logger.debug(fields, 'debug line');
    logger.warn(fields, 'warn line');
    logger.fatal(fields, 'fatal line');
    const output = text();
    expect(output.split('\n').filter(Boolean)).toHaveLength(4);
    expectNoSecret(output, [SECRETS.accessToken, SECRETS.idToken, SECRETS.clientSecret]);
  });

  it('redacts the bindings of a child logger', () => {
    const { logger, text } = capture();
    logger.child({ token: SECRETS.token, headers: { authorization: SECRETS.authorization } }).info('child line');
    expectNoSecret(text(), [SECRETS.token, SECRETS.authorization]);
    expect(text()).toContain('child line');
  });

  it('redacts a secret field two levels down', () => {
    const { logger, text } = capture();
    logger.info(
      { upstream: { response: { id_token: SECRETS.idToken, refresh_token: SECRETS.refreshToken } } },
      'upstream token response',
    );
    expectNoSecret(text(), [SECRETS.idToken, SECRETS.refreshToken]);
  });

  it('does not write below the configured level', () => {
    const { logger, text } = capture('warn');
    logger.info({ tenant_id: 'acme' }, 'quiet');
    logger.warn({ tenant_id: 'acme' }, 'loud');
    expect(text()).not.toContain('quiet');
    expect(text()).toContain('loud');
  });
});

describe('serializeError', () => {
  const pgError = () =>
    Object.assign(new Error('duplicate key value violates unique constraint "persons_email_key"'), {
      code: '23505',
      detail: `Key (email)=(${SECRETS.email}) already exists.`,
      where: `SQL statement with ${SECRETS.familyName}`,
      query: `INSERT INTO persons (email) VALUES ('${SECRETS.email}')`,
    });

  it('keeps the type, message and code and drops detail, where and query', () => {
    const serialized = serializeError(pgError());
    expect(serialized).toMatchObject({
      type: 'Error',
      message: 'duplicate key value violates unique constraint "persons_email_key"',
      code: '23505',
    });
    expect(serialized).not.toHaveProperty('detail');
    expect(serialized).not.toHaveProperty('where');
    expect(serialized).not.toHaveProperty('query');
    expectNoSecret(JSON.stringify(serialized), [SECRETS.email, SECRETS.familyName]);
  });

  it('keeps a numeric status code and a summary of the cause, without its data', () => {
    const cause = pgError();
    const error = Object.assign(new AppError('conflict', 'The person already exists.', { cause }), { statusCode: 409 });
    const serialized = serializeError(error);
    expect(serialized).toMatchObject({
      type: 'AppError',
      message: 'The person already exists.',
      code: 'conflict',
      statusCode: 409,
    });
    expect(serialized.cause).toEqual({ type: 'Error', message: cause.message, code: '23505' });
    expectNoSecret(JSON.stringify(serialized), [SECRETS.email]);
  });

  it('answers a fixed message for a thrown value that is not an Error', () => {
    expect(serializeError({ detail: SECRETS.email })).toEqual({ message: 'non-error thrown' });
    expect(serializeError('boom')).toEqual({ message: 'non-error thrown' });
  });

  it('is applied to err and error fields and to a logged Error, leaving out the driver detail', () => {
    const { logger, text, records } = capture();
    logger.error({ err: pgError() }, 'insert failed');
    logger.error({ error: pgError() }, 'insert failed again');
    logger.error(pgError(), 'insert failed a third time');
    expectNoSecret(text(), [SECRETS.email, SECRETS.familyName]);
    const logged = records();
    expect(logged).toHaveLength(3);
    expect(logged[0]!.err).toMatchObject({ type: 'Error', message: expect.stringContaining('duplicate key') });
    expect(logged[1]!.error).toMatchObject({ type: 'Error' });
    expect(logged[2]!.err).toMatchObject({ type: 'Error' });
  });

  it('keeps the error code in a logged error', () => {
    const { logger, records } = capture();
    logger.error({ err: pgError() }, 'insert failed');
    logger.warn({ err: new AppError('invalid_request', 'The name is missing.') }, 'request refused');
    const [db, app] = records();
    expect(db!.err).toMatchObject({ code: '23505' });
    expect(app!.err).toMatchObject({ code: 'invalid_request' });
  });
});
