import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { installTimestamptzParser, parseTimestamptz, pgTimestamptzParser } from './timestamptz.js';
import { createPostgresTestDatabase } from '../testing/index.js';

const same = (text: string) => expect(parseTimestamptz(text)).toEqual(pgTimestamptzParser(text));

describe('timestamptz parser', () => {
  it('reads the UTC form as pg does, with fractions of every length', () => {
    for (const text of [
      '2026-11-28 12:34:56+00',
      '2026-11-28 12:34:56.1+00',
      '2026-11-28 12:34:56.12+00',
      '2026-11-28 12:34:56.123+00',
      '2026-11-28 12:34:56.1234+00',
      '2026-11-28 12:34:56.12345+00',
      '2026-11-28 12:34:56.999999+00',
      '2024-02-29 23:59:59.000001+00',
      '1000-01-01 00:00:00+00',
      '9999-12-31 23:59:59.999999+00',
    ]) {
      same(text);
      expect(parseTimestamptz(text)).toBeInstanceOf(Date);
    }
    expect((parseTimestamptz('2026-11-28 12:34:56.123456+00') as Date).toISOString()).toBe('2026-11-28T12:34:56.123Z');
  });

  it('leaves every other form to pg: zones, BC years, early years, infinity, junk', () => {
    for (const text of [
      '2026-11-28 13:34:56.5+01',
      '2026-11-28 07:04:56-05:30',
      '2026-11-28 12:34:56+00:00:30',
      '0099-01-01 00:00:00+00',
      '0500-06-01 12:00:00+00',
      '2026-11-28 12:34:56+00 BC',
      '12026-11-28 12:34:56+00',
      'infinity',
      '-infinity',
      '2026-11-28',
      '2026-1x-28 12:34:56+00',
      '2026-11-28 12:34:56.+00',
    ])
      same(text);
  });

  it('matches pg on a thousand random instants', () => {
    for (let i = 0; i < 1000; i++) {
      const ms = Math.floor(Math.random() * 8e12) + 1e11;
      const micros = String(Math.floor(Math.random() * 1e6)).padStart(6, '0');
      const base = new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
      same(`${base}.${micros.slice(0, 1 + (i % 6))}+00`);
      same(`${base}+00`);
    }
  });

  it('is the parser of the PostgreSQL engine: values round-trip through a UTC session', async () => {
    installTimestamptzParser();
    expect(pg.types.getTypeParser(1184, 'text')).toBe(parseTimestamptz);
    const db = await createPostgresTestDatabase();
    const client = new pg.Client({ connectionString: db.url });
    try {
      await client.connect();
      await client.query("SET TimeZone = 'UTC'");
      const r = await client.query<{ a: Date; b: Date; c: Date; d: string }>(
        `SELECT '2026-11-28 12:34:56.123456+00'::timestamptz AS a, '2026-11-28 13:34:56+01'::timestamptz AS b,
                'infinity'::timestamptz AS c, '2026-11-28 12:34:56.123456+00'::timestamptz::text AS d`,
      );
      expect(r.rows[0]!.a.toISOString()).toBe('2026-11-28T12:34:56.123Z');
      expect(r.rows[0]!.b.toISOString()).toBe('2026-11-28T12:34:56.000Z');
      expect(r.rows[0]!.c).toBe(Infinity);
      expect(r.rows[0]!.d).toBe('2026-11-28 12:34:56.123456+00');
      await client.query("SET TimeZone = 'Asia/Kolkata'");
      const local = await client.query<{ a: Date }>(`SELECT '2026-11-28 12:34:56.5+00'::timestamptz AS a`);
      expect(local.rows[0]!.a.toISOString()).toBe('2026-11-28T12:34:56.500Z');
    } finally {
      await client.end();
      await db.drop();
    }
  });
});
