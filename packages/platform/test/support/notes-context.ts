import Type from 'typebox';
import {
  defineCommand,
  notFound,
  commandContext,
  type Platform,
  type RoleApp,
  type Sql,
  type Migration,
} from '../../src/index.js';

/**
 * A minimal bounded context used by the platform's own tests: one tenant-scoped table, a store, commands and
 * routes shaped exactly as a real context is (routes → commands → storage).
 */
export const notesMigration: Migration = {
  id: 'test/0001_notes',
  sql: `
    CREATE TABLE notes (
      tenant_id  text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
      id         uuid NOT NULL DEFAULT gen_random_uuid(),
      text       text NOT NULL,
      PRIMARY KEY (tenant_id, id)
    );
    SELECT tessera_tenant_table('notes');`,
};

interface Note {
  tenantId: string;
  id: string;
  text: string;
}
const row = (r: { tenant_id: string; id: string; text: string }): Note => ({
  tenantId: r.tenant_id,
  id: r.id,
  text: r.text,
});

/** The store: SQL only, no tenant anywhere in it. */
export const notesStore = {
  async create(sql: Sql, text: string): Promise<Note> {
    return row(
      (
        await sql.query<{ tenant_id: string; id: string; text: string }>(
          'INSERT INTO notes (text) VALUES ($1) RETURNING *',
          [text],
        )
      ).rows[0]!,
    );
  },
  async list(sql: Sql): Promise<Note[]> {
    return (
      await sql.query<{ tenant_id: string; id: string; text: string }>('SELECT * FROM notes ORDER BY text')
    ).rows.map(row);
  },
  async get(sql: Sql, id: string): Promise<Note | null> {
    const r = (
      await sql.query<{ tenant_id: string; id: string; text: string }>('SELECT * FROM notes WHERE id = $1', [id])
    ).rows[0];
    return r ? row(r) : null;
  },
  async update(sql: Sql, id: string, text: string): Promise<boolean> {
    return (await sql.query('UPDATE notes SET text = $2 WHERE id = $1', [id, text])).rowCount === 1;
  },
  async remove(sql: Sql, id: string): Promise<boolean> {
    return (await sql.query('DELETE FROM notes WHERE id = $1', [id])).rowCount === 1;
  },
};

export function notesCommands(platform: Platform) {
  const { db } = platform;
  return {
    create: defineCommand<{ text: string }, Note>({
      id: 'test.notes.create',
      access: 'write',
      businessIds: (_i, o): Record<string, string> => (o ? { noteId: o.id } : {}),
      run: (ctx, input) => db.withTenant(ctx.tenantId, (sql) => notesStore.create(sql, input.text)),
    }),
    list: defineCommand<void, Note[]>({
      id: 'test.notes.list',
      access: 'read',
      run: (ctx) => db.withTenant(ctx.tenantId, (sql) => notesStore.list(sql)),
    }),
    get: defineCommand<{ id: string }, Note>({
      id: 'test.notes.get',
      access: 'read',
      run: async (ctx, { id }) =>
        (await db.withTenant(ctx.tenantId, (sql) => notesStore.get(sql, id))) ??
        Promise.reject(notFound('No such note.')),
    }),
    update: defineCommand<{ id: string; text: string }, void>({
      id: 'test.notes.update',
      access: 'write',
      run: async (ctx, { id, text }) => {
        if (!(await db.withTenant(ctx.tenantId, (sql) => notesStore.update(sql, id, text))))
          throw notFound('No such note.');
      },
    }),
    remove: defineCommand<{ id: string }, void>({
      id: 'test.notes.remove',
      access: 'write',
      run: async (ctx, { id }) => {
        if (!(await db.withTenant(ctx.tenantId, (sql) => notesStore.remove(sql, id)))) throw notFound('No such note.');
      },
    }),
    explode: defineCommand<void, void>({
      id: 'test.notes.explode',
      access: 'read',
      run: async () => {
        throw new Error('SELECT secret FROM vault WHERE password = hunter2');
      },
    }),
  };
}

const NoteBody = Type.Object({ text: Type.String({ minLength: 1, maxLength: 200 }) });
const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

/** Routes under `prefix`, in the given error family. */
export function registerNotesRoutes(
  app: RoleApp,
  platform: Platform,
  prefix: string,
  family: 'oauth' | 'design',
): void {
  const commands = notesCommands(platform);
  const run = platform.commands;
  const config = { family };
  app.post(`${prefix}`, { config, schema: { body: NoteBody } }, async (request, reply) =>
    reply.status(201).send(await run.execute(commands.create, commandContext(request), { text: request.body.text })),
  );
  app.get(`${prefix}`, { config }, async (request) => ({
    data: await run.execute(commands.list, commandContext(request), undefined),
  }));
  app.get(`${prefix}/:id`, { config, schema: { params: IdParams } }, async (request) =>
    run.execute(commands.get, commandContext(request), { id: request.params.id }),
  );
  app.put(`${prefix}/:id`, { config, schema: { params: IdParams, body: NoteBody } }, async (request, reply) => {
    await run.execute(commands.update, commandContext(request), { id: request.params.id, text: request.body.text });
    return reply.status(204).send();
  });
  app.delete(`${prefix}/:id`, { config, schema: { params: IdParams } }, async (request, reply) => {
    await run.execute(commands.remove, commandContext(request), { id: request.params.id });
    return reply.status(204).send();
  });
  app.get(`${prefix}-explode`, { config }, async (request) =>
    run.execute(commands.explode, commandContext(request), undefined),
  );
}
