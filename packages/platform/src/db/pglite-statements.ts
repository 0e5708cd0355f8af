import { messages, parse, protocol, TransactionAbortedError, type PGlite, type Results } from '@electric-sql/pglite';

const { serialize, Parser } = protocol;
type BackendMessage = messages.BackendMessage;

/** How many statement texts stay prepared at once; the least recently used is closed beyond it. */
const DEFAULT_MAX_STATEMENTS = 512;
/** SQLSTATE 0A000 with this text: a prepared statement whose table changed shape since it was prepared. */
const RESULT_TYPE_CHANGED = /cached plan must not change result type/;

interface Prepared {
  readonly name: string;
  /** Parameter type OIDs as the server inferred them, for PGlite's own serializers. */
  readonly paramTypes: readonly number[];
}

/**
 * Statements on the embedded database through its wire protocol, each text prepared once under a name and then
 * executed by name, in one call into the engine.
 *
 * PGlite's `query` makes six calls into the engine per statement (Parse, Describe, Bind, Describe, Execute, Sync),
 * and PostgreSQL parses and plans the text on every one of them: a `SELECT 1` cost about 250 µs, the audit append
 * about 1 ms. Prepared once, a statement is one call of Bind, Describe, Execute and Sync, and its plan is kept
 * (PostgreSQL's plan cache, re-planned when a table it reads changes or the role or search_path differ): a
 * `SELECT 1` then costs about 25 µs. This is what `QueryOptions.prepareAs` does on PostgreSQL, for every statement:
 * the embedded database is one session in this process, so a name can never meet another client's statement.
 *
 * Parameters are serialised by PGlite's own serializers for the types the server inferred (learnt once, when the
 * statement is prepared) and rows parsed by its parsers, so results are the same as `query` gives.
 *
 * Callers hold PGlite's transaction lock for the unit of work (pglite.ts), so no other statement interleaves, and
 * run inside a transaction block, so no notification arrives in a statement's response: PostgreSQL delivers them
 * after the commit, which `commit` hands to PGlite.
 */
export class PgliteStatements {
  /** Text → prepared statement, in order of last use (a Map keeps insertion order). */
  private readonly prepared = new Map<string, Prepared>();
  private nextId = 0;
  /** Names of this executor's statements: unique on the engine, should another executor share it. */
  private readonly prefix = `tessera_${(executors++).toString(36)}_`;

  constructor(
    private readonly pglite: PGlite,
    private readonly maxStatements = DEFAULT_MAX_STATEMENTS,
  ) {}

  /** Runs one statement; throws the engine's DatabaseError as PGlite's `query` does. */
  run(text: string, params: readonly unknown[] | undefined): Results {
    const statement = this.statementFor(text);
    const serializers = this.pglite.serializers;
    const values = (params ?? []).map((value, index) => {
      if (value === null || value === undefined) return null;
      const serializer = serializers[statement.paramTypes[index] ?? 0];
      return serializer ? (serializer(value) as string) : String(value);
    });
    const replies = this.exchange(
      serialize.bind({ statement: statement.name, values }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    );
    const failure = errorIn(replies);
    if (failure) {
      // The table changed shape under the kept plan: prepare the text anew next time.
      if (RESULT_TYPE_CHANGED.test(failure.message)) this.forget(text, statement);
      throw failure;
    }
    return parse.parseResults(replies, this.pglite.parsers)[0] ?? EMPTY;
  }

  /**
   * Runs a script of statements without parameters (PostgreSQL's simple protocol) in one call; its replies, or the
   * engine's DatabaseError thrown.
   */
  script(text: string): BackendMessage[] {
    const replies = this.exchange(serialize.query(text));
    const failure = errorIn(replies);
    if (failure) throw failure;
    return replies;
  }

  /**
   * Commits the open transaction through PGlite's own message handling, which hands the notifications that the
   * commit releases to the engine's listeners (pglite-notifications.ts); a transaction that a failed statement
   * aborted answers ROLLBACK to COMMIT, and that is thrown as PGlite's `transaction` throws it. Not synced to the
   * file system afterwards, as PGlite's `transaction` does not sync after its COMMIT either.
   */
  async commit(): Promise<void> {
    const replies = await this.pglite.execProtocolStream(serialize.query('COMMIT'), { syncToFs: false });
    if (replies.some((reply) => reply instanceof messages.CommandCompleteMessage && reply.text === 'ROLLBACK'))
      throw new TransactionAbortedError();
  }

  /** Forgets every prepared statement (the engine is closing). */
  clear(): void {
    this.prepared.clear();
  }

  private statementFor(text: string): Prepared {
    const known = this.prepared.get(text);
    if (known) {
      // Most recently used last.
      this.prepared.delete(text);
      this.prepared.set(text, known);
      return known;
    }
    if (this.prepared.size >= this.maxStatements) {
      const [oldestText, oldest] = this.prepared.entries().next().value as [string, Prepared];
      this.forget(oldestText, oldest);
    }
    const name = `${this.prefix}${(this.nextId++).toString(36)}`;
    const replies = this.exchange(
      serialize.parse({ name, text, types: [] }),
      serialize.describe({ type: 'S', name }),
      serialize.sync(),
    );
    const failure = errorIn(replies);
    if (failure) throw failure;
    const statement = { name, paramTypes: parse.parseDescribeStatementResults(replies) };
    this.prepared.set(text, statement);
    return statement;
  }

  private forget(text: string, statement: Prepared): void {
    this.prepared.delete(text);
    // Closing a statement that is gone already is no error (the protocol's Close is idempotent).
    this.exchange(serialize.close({ type: 'S', name: statement.name }), serialize.sync());
  }

  /** One call into the engine with the messages given; the replies parsed. */
  private exchange(...parts: Uint8Array[]): BackendMessage[] {
    let length = 0;
    for (const part of parts) length += part.length;
    const request = new Uint8Array(length);
    let at = 0;
    for (const part of parts) {
      request.set(part, at);
      at += part.length;
    }
    const replies: BackendMessage[] = [];
    new Parser().parse(this.pglite.execProtocolRawSync(request), (message) => replies.push(message));
    return replies;
  }
}

let executors = 0;

const EMPTY: Results = { rows: [], fields: [], affectedRows: 0 };

function errorIn(replies: BackendMessage[]): messages.DatabaseError | undefined {
  for (const reply of replies) if (reply instanceof messages.DatabaseError) return reply;
  return undefined;
}
