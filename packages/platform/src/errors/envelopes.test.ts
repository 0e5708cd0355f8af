import { describe, expect, it } from 'vitest';
import { AppError, invalidRequest, isAppError, notFound, type ErrorCode } from './app-error.js';
import { GENERIC_SERVER_ERROR, renderError } from './envelopes.js';

/** One error model, one envelope per API family (000 §7: `{error, error_description}`; 001 §7: `{code, message}`). */

describe('AppError', () => {
  it.each<[ErrorCode, number]>([
    ['invalid_request', 400],
    ['invalid_token', 401],
    ['unauthenticated', 401],
    ['insufficient_scope', 403],
    ['policy_denied', 403],
    ['tenant_not_resolved', 400],
    ['not_found', 404],
    ['already_exists', 409],
    ['conflict', 409],
    ['payload_too_large', 413],
    ['unsupported_media_type', 415],
    ['rate_limited', 429],
    ['service_unavailable', 503],
    ['server_error', 500],
  ])('maps %s to %d', (code, status) => {
    const error = new AppError(code, 'message');
    expect(error.status).toBe(status);
    expect(error.expose).toBe(status < 500);
    expect(error.name).toBe('AppError');
    expect(isAppError(error)).toBe(true);
  });

  it('takes a status override, keeps the cause and the headers', () => {
    const cause = new Error('inner');
    const error = new AppError('invalid_request', 'gone', { status: 410, cause, headers: { 'retry-after': '3' } });
    expect(error.status).toBe(410);
    expect(error.cause).toBe(cause);
    expect(error.headers).toEqual({ 'retry-after': '3' });
    expect(isAppError(new Error('plain'))).toBe(false);
  });

  it('builds invalid_request and not_found with their field and wire code', () => {
    expect(invalidRequest('bad', 'name')).toMatchObject({ code: 'invalid_request', status: 400, field: 'name' });
    expect(invalidRequest('bad').field).toBeUndefined();
    expect(notFound('none', 'session_not_found')).toMatchObject({
      code: 'not_found',
      status: 404,
      wireCode: 'session_not_found',
    });
    expect(notFound('none').wireCode).toBeUndefined();
  });
});

describe('renderError: oauth family', () => {
  it('renders {error, error_description}', () => {
    expect(renderError('oauth', new AppError('invalid_request', 'The scope is missing.'))).toEqual({
      error: 'invalid_request',
      error_description: 'The scope is missing.',
    });
  });

  it('adds the field when the error has one', () => {
    expect(renderError('oauth', invalidRequest('The redirect_uri is not registered.', 'redirect_uri'))).toEqual({
      error: 'invalid_request',
      error_description: 'The redirect_uri is not registered.',
      field: 'redirect_uri',
    });
  });

  it('maps internal codes to the standard words', () => {
    expect(renderError('oauth', new AppError('policy_denied', 'No.')).error).toBe('access_denied');
    expect(renderError('oauth', new AppError('unauthenticated', 'Who?')).error).toBe('invalid_token');
    expect(renderError('oauth', new AppError('invalid_token', 'Expired.')).error).toBe('invalid_token');
    expect(renderError('oauth', new AppError('tenant_not_resolved', 'No tenant.')).error).toBe('invalid_request');
    expect(renderError('oauth', new AppError('service_unavailable', 'Later.'))).toEqual({
      error: 'temporarily_unavailable',
      error_description: GENERIC_SERVER_ERROR,
    });
  });

  it('lets the wire code override the code', () => {
    expect(
      renderError('oauth', new AppError('invalid_request', 'The code was used.', { wireCode: 'invalid_grant' })).error,
    ).toBe('invalid_grant');
    expect(renderError('platform', new AppError('not_found', 'Expired.', { wireCode: 'session_expired' }))).toEqual({
      error: 'session_expired',
      error_description: 'Expired.',
    });
  });

  it('never exposes the message of a server error', () => {
    const secret = 'duplicate key value violates unique constraint "clients_pkey" (client_secret=s3cr3t)';
    const rendered = renderError('oauth', new AppError('server_error', secret, { wireCode: 'internal_detail' }));
    expect(rendered).toEqual({ error: 'server_error', error_description: GENERIC_SERVER_ERROR });
    expect(JSON.stringify(rendered)).not.toContain('s3cr3t');
  });

  it('hides the message of any error given a 5xx status', () => {
    expect(renderError('platform', new AppError('conflict', 'SELECT * FROM secrets', { status: 502 }))).toEqual({
      error: 'server_error',
      error_description: GENERIC_SERVER_ERROR,
    });
  });
});

describe('renderError: design and party families', () => {
  it.each<[ErrorCode, string, number]>([
    ['invalid_request', 'ILLEGAL_ARGUMENT_ERROR', 400],
    ['not_found', 'NOT_FOUND_ERROR', 404],
    ['already_exists', 'ALREADY_EXISTS_ERROR', 409],
    ['policy_denied', 'POLICY_DENIED', 403],
    ['insufficient_scope', 'POLICY_DENIED', 403],
    ['invalid_token', 'UNAUTHENTICATED', 401],
    ['unauthenticated', 'UNAUTHENTICATED', 401],
  ])('renders %s as %s (%d)', (internal, code, status) => {
    const error = new AppError(internal, 'What went wrong.');
    expect(error.status).toBe(status);
    expect(renderError('design', error)).toEqual({ code, message: 'What went wrong.' });
    expect(renderError('party', error)).toEqual({ code, message: 'What went wrong.' });
  });

  it('adds the field when the error has one', () => {
    expect(renderError('design', invalidRequest('The name is too long.', 'name'))).toEqual({
      code: 'ILLEGAL_ARGUMENT_ERROR',
      message: 'The name is too long.',
      field: 'name',
    });
  });

  it('renders a 500 as UNKNOWN_ERROR with a generic message', () => {
    const rendered = renderError('design', new AppError('server_error', 'relation "designs" does not exist'));
    expect(rendered).toEqual({ code: 'UNKNOWN_ERROR', message: GENERIC_SERVER_ERROR });
    expect(renderError('party', new AppError('server_error', 'stack at x.ts:1'))).toEqual({
      code: 'UNKNOWN_ERROR',
      message: GENERIC_SERVER_ERROR,
    });
  });

  it('keeps SERVICE_UNAVAILABLE for a 503, without its message', () => {
    expect(renderError('design', new AppError('service_unavailable', 'pool exhausted at db-1'))).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: GENERIC_SERVER_ERROR,
    });
  });

  it('lets the wire code override the code below 500, not at 500', () => {
    expect(renderError('design', new AppError('conflict', 'Published.', { wireCode: 'DESIGN_PUBLISHED' }))).toEqual({
      code: 'DESIGN_PUBLISHED',
      message: 'Published.',
    });
    expect(renderError('design', new AppError('server_error', 'boom', { wireCode: 'DB_DOWN' })).code).toBe(
      'UNKNOWN_ERROR',
    );
  });
});
