import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogDestination } from './log-destination.js';

describe('createLogDestination', () => {
  const file = () => join(mkdtempSync(join(tmpdir(), 'log-destination-')), 'out.log');

  it('holds short output until flushed, then writes it whole', () => {
    const path = file();
    const destination = createLogDestination(path);
    destination.write('{"msg":"one"}\n');
    destination.write('{"msg":"two"}\n');
    expect(readFileSync(path, 'utf8')).toBe('');
    destination.flushSync();
    expect(readFileSync(path, 'utf8')).toBe('{"msg":"one"}\n{"msg":"two"}\n');
  });

  it('writes full chunks as they fill, multi-byte characters intact, every line in order', () => {
    const path = file();
    const destination = createLogDestination(path);
    const lines = Array.from({ length: 2000 }, (_, i) => `{"n":${i},"name":"Zoë Ångström 名前 ✓"}\n`);
    for (const line of lines) destination.write(line);
    // More than one 16 KiB chunk was handed over without a flush.
    expect(readFileSync(path, 'utf8').length).toBeGreaterThan(16 * 1024);
    destination.flushSync();
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
  });
});
