import { describe, expect, it } from 'vitest';
import { parseArgs } from '../src/cli/args.js';

describe('command line', () => {
  it('reads the commands, roles, configuration file and tenants', () => {
    expect(parseArgs([])).toEqual({ command: 'start' });
    expect(parseArgs(['--roles', 'bridge,token'])).toEqual({ command: 'start', roles: ['bridge', 'token'] });
    expect(parseArgs(['migrate', '--config=/etc/tessera.yaml'])).toEqual({
      command: 'migrate',
      configFile: '/etc/tessera.yaml',
    });
    expect(parseArgs(['audit-verify', '--tenant', 'demo'])).toEqual({ command: 'audit-verify', tenants: ['demo'] });
    // "start" after identity-keys is its action, not the server's start command.
    expect(parseArgs(['identity-keys', 'start', '--tenant', 'demo'])).toEqual({
      command: 'identity-keys',
      action: 'start',
      tenants: ['demo'],
    });
    expect(parseArgs(['identity-keys', 'rollback', '--tenant=beta'])).toEqual({
      command: 'identity-keys',
      action: 'rollback',
      tenants: ['beta'],
    });
  });

  it('reads request-signing csr with its subject and names', () => {
    expect(
      parseArgs([
        'request-signing',
        'csr',
        '--subject',
        'CN=v.example',
        '--alt-name',
        'v.example',
        '--alt-name=w.example',
      ]),
    ).toEqual({
      command: 'request-signing',
      action: 'csr',
      subject: 'CN=v.example',
      altNames: ['v.example', 'w.example'],
    });
    expect(parseArgs(['request-signing', 'csr', '--tenant', 'acme'])).toEqual({
      command: 'request-signing',
      action: 'csr',
      tenants: ['acme'],
    });
  });

  it('reads signing-keys list and rotate with its alias and retention', () => {
    expect(parseArgs(['signing-keys', 'list'])).toEqual({ command: 'signing-keys', action: 'list' });
    expect(
      parseArgs(['signing-keys', 'rotate', '--alias', 'token-service:demo:rs256', '--retain-seconds=90000']),
    ).toEqual({
      command: 'signing-keys',
      action: 'rotate',
      alias: 'token-service:demo:rs256',
      retainSeconds: '90000',
    });
  });

  it('refuses unknown arguments and flags without a value', () => {
    expect(() => parseArgs(['--bogus'])).toThrow(/unknown argument/);
    expect(() => parseArgs(['--roles'])).toThrow(/needs a value/);
  });
});
