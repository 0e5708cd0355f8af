import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PgliteDatabase } from './pglite.js';
import { PgliteStatements } from './pglite-statements.js';

/** The prepared statements the engine holds now (pg_prepared_statements lists the session's own). */
async function preparedNames(pglite: PGlite): Promise<string[]> {
  const result = await pglite.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
  return result.rows.map((row) => row.name);
}

describe('PGlite statements prepared by name', () => {
  let pglite: PGlite;

  // One engine for the file (starting one takes a second or two); each test starts from no statements and a new table.
  beforeAll(async () => {
    pglite = await PGlite.create();
  });
  beforeEach(async () => {
    await pglite.exec(`DEALLOCATE ALL; DROP TABLE IF EXISTS things;
      CREATE TABLE things (id int PRIMARY KEY, doc jsonb, tags text[], body bytea, at timestamptz)`);
  });
  afterAll(async () => {
    await pglite.close();
  });

  it('gives the rows, fields and counts that PGlite query gives, with its serializers and parsers', async () => {
    const statements = new PgliteStatements(pglite);
    const at = new Date('2026-11-27T10:00:00.000Z');
    const insert = 'INSERT INTO things (id, doc, tags, body, at) VALUES ($1, $2, $3, $4, $5)';
    statements.run(insert, [1, { a: [1, 'x'] }, ['p', 'q r'], Buffer.from([0, 255]), at]);
    statements.run(insert, [2, null, null, null, undefined]);
    const select = 'SELECT id, doc, tags, body, at FROM things ORDER BY id';
    const ours = statements.run(select, []);
    const theirs = await pglite.query(select);
    expect(ours.rows).toEqual(theirs.rows);
    expect(ours.fields).toEqual(theirs.fields);
    expect(ours.rows[0]).toEqual({
      id: 1,
      doc: { a: [1, 'x'] },
      tags: ['p', 'q r'],
      body: new Uint8Array([0, 255]),
      at,
    });
    expect(statements.run('UPDATE things SET doc = $1 WHERE id > $2', [{ b: true }, 0]).affectedRows).toBe(2);
    expect(statements.run('DELETE FROM things WHERE id = $1', [5]).affectedRows).toBe(0);
  });

  it('prepares a text once and runs it by name afterwards', async () => {
    const statements = new PgliteStatements(pglite);
    for (let i = 0; i < 5; i++) expect(statements.run('SELECT $1::int + 1 AS n', [i]).rows).toEqual([{ n: i + 1 }]);
    statements.run('SELECT 2 AS two', []);
    expect(await preparedNames(pglite)).toHaveLength(2);
  });

  it('closes the least recently used statement beyond its bound', async () => {
    const statements = new PgliteStatements(pglite, 3);
    statements.run('SELECT 1 AS a', []);
    statements.run('SELECT 2 AS b', []);
    statements.run('SELECT 3 AS c', []);
    statements.run('SELECT 1 AS a', []); // used again: the oldest is now "b"
    statements.run('SELECT 4 AS d', []);
    expect(await preparedNames(pglite)).toHaveLength(3);
    const texts = await pglite.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
    expect(texts.rows.map((row) => row.statement).sort()).toEqual(['SELECT 1 AS a', 'SELECT 3 AS c', 'SELECT 4 AS d']);
  });

  it('throws the engine error and keeps nothing of a statement that does not parse', async () => {
    const statements = new PgliteStatements(pglite);
    expect(() => statements.run('SELEC 1', [])).toThrow(expect.objectContaining({ code: '42601' }));
    expect(await preparedNames(pglite)).toEqual([]);
    statements.run('INSERT INTO things (id) VALUES ($1)', [7]);
    expect(() => statements.run('INSERT INTO things (id) VALUES ($1)', [7])).toThrow(
      expect.objectContaining({ code: '23505', constraint: 'things_pkey' }),
    );
    // The session is still usable after both errors.
    expect(statements.run('SELECT count(*)::int AS n FROM things', []).rows).toEqual([{ n: 1 }]);
  });

  it('prepares a statement anew once its table has changed shape', async () => {
    const statements = new PgliteStatements(pglite);
    statements.run('INSERT INTO things (id) VALUES (1)', []);
    expect(statements.run('SELECT * FROM things', []).fields).toHaveLength(5);
    await pglite.exec('ALTER TABLE things ADD COLUMN extra text');
    expect(() => statements.run('SELECT * FROM things', [])).toThrow(/cached plan must not change result type/);
    expect(statements.run('SELECT * FROM things', []).fields).toHaveLength(6);
  });

  it('runs scripts of several statements in one call and throws their error', async () => {
    const statements = new PgliteStatements(pglite);
    statements.script('INSERT INTO things (id) VALUES (10); INSERT INTO things (id) VALUES (11)');
    expect((await pglite.query('SELECT id FROM things ORDER BY id')).rows).toEqual([{ id: 10 }, { id: 11 }]);
    expect(() => statements.script('INSERT INTO things (id) VALUES (10)')).toThrow(
      expect.objectContaining({ code: '23505' }),
    );
  });
});

describe('PGlite units of work', () => {
  it('end the transaction when the unit settings fail, so the engine stays usable', async () => {
    // No migrations: the runtime role does not exist, so the unit's SET LOCAL ROLE fails after its BEGIN.
    const db = await PgliteDatabase.open('memory://');
    try {
      await db.enableRuntimeRole();
      await expect(db.withTenant('alpha', (sql) => sql.query('SELECT 1'))).rejects.toThrow(/role/);
      expect(db.pglite.isInTransaction()).toBe(false);
      expect((await db.pglite.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });
});
