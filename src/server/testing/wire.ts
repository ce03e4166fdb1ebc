import type pg from "pg";

/**
 * What each unit of work writes on its connection's socket: the chunks of every write, one entry per
 * write the socket makes (corked writes go out as one).
 */
export function recordWrites(pool: pg.Pool): { writes: string[][]; stop(): void } {
  const writes: string[][] = [];
  const undo: (() => void)[] = [];
  const watched = new WeakSet<object>();
  const onAcquire = (client: unknown) => {
    const socket = (client as { connection: { stream: Record<string, unknown> } }).connection.stream;
    // A connection checked out again while recording is already watched.
    if (watched.has(socket)) return;
    watched.add(socket);
    const writev = socket._writev as (chunks: { chunk: Buffer }[], cb: unknown) => void;
    const write = socket._write as (chunk: Buffer, enc: unknown, cb: unknown) => void;
    socket._writev = function (this: unknown, chunks: { chunk: Buffer }[], cb: unknown) {
      writes.push(chunks.map((c) => Buffer.from(c.chunk).toString("latin1")));
      return writev.call(this, chunks, cb);
    };
    socket._write = function (this: unknown, chunk: Buffer, enc: unknown, cb: unknown) {
      writes.push([Buffer.from(chunk).toString("latin1")]);
      return write.call(this, chunk, enc, cb);
    };
    undo.push(() => {
      socket._writev = writev;
      socket._write = write;
    });
  };
  pool.on("acquire", onAcquire);
  return {
    writes,
    stop() {
      pool.off("acquire", onAcquire);
      for (const u of undo) u();
    },
  };
}

/** Runs `call` while recording the pool's writes: its answer, and each write the socket made as one string. */
export async function writesDuring<T>(pool: pg.Pool, call: () => Promise<T>): Promise<{ answer: T; writes: string[] }> {
  const rec = recordWrites(pool);
  try {
    const answer = await call();
    return { answer, writes: rec.writes.map((w) => w.join("")) };
  } finally {
    rec.stop();
  }
}

/** The frontend messages of a recorded write: a type letter, then a length that counts itself, then the body. */
function messages(write: string): { type: string; body: string }[] {
  const out: { type: string; body: string }[] = [];
  for (let at = 0; at < write.length; ) {
    const length = Buffer.from(write.slice(at + 1, at + 5), "latin1").readInt32BE(0);
    out.push({ type: write[at]!, body: write.slice(at + 5, at + 1 + length) });
    at += 1 + length;
  }
  return out;
}

/**
 * How many extended-protocol statements a recorded write carries (`pg` ends each with a Sync). A
 * statement prepared earlier on the connection goes out by name only, so its text cannot be looked for.
 */
export function statementsIn(write: string): number {
  return messages(write).filter((m) => m.type === "S").length;
}

/** The simple queries of a recorded write (BEGIN, COMMIT, ROLLBACK), in order. */
export function simpleQueriesIn(write: string): string[] {
  return messages(write)
    .filter((m) => m.type === "Q")
    .map((m) => m.body.replace(/\0$/, ""));
}

/** The names of the statements a recorded write parses, in order ("" for an unnamed one). */
export function parsedNamesIn(write: string): string[] {
  return messages(write)
    .filter((m) => m.type === "P")
    .map((m) => m.body.slice(0, m.body.indexOf("\0")));
}
