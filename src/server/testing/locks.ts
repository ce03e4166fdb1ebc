import type pg from "pg";

/** `locking: false`: the statement takes its lock itself (an advisory gate), no FOR UPDATE is added. */
type Statement = { sql: string; params: unknown[]; locking?: false };

/**
 * Lock-order check. A gate transaction takes `hold` (a row lock the request needs); `send` starts
 * the request; once the request is seen waiting on a lock (a statement naming `table`), a probe
 * tries `probe` with NOWAIT. `free` is true when the request, waiting on the gate, holds nothing the
 * probe needs: it did not take that lock before the held one. Then the gate lets go and the
 * request's answer is returned.
 */
export async function waitsWithoutHolding<T>(
  pool: pg.Pool,
  opts: { hold: Statement; probe: Statement; table: string; send: () => Promise<T> },
): Promise<{ waited: boolean; free: boolean; result: T }> {
  const gate = await pool.connect();
  const probe = await pool.connect();
  try {
    await gate.query("BEGIN");
    await gate.query(opts.hold.locking === false ? opts.hold.sql : `${opts.hold.sql} FOR UPDATE`, opts.hold.params);
    const pending = opts.send();
    let waited = false;
    for (let i = 0; i < 100 && !waited; i++) {
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%' || $1 || '%'`,
        [opts.table],
      );
      waited = rows[0].n > 0;
      if (!waited) await new Promise((r) => setTimeout(r, 50));
    }
    await probe.query("BEGIN");
    const free = await probe.query(`${opts.probe.sql} FOR UPDATE NOWAIT`, opts.probe.params).then(
      () => true,
      () => false,
    );
    await probe.query("ROLLBACK");
    await gate.query("COMMIT");
    return { waited, free, result: await pending };
  } finally {
    await gate.query("ROLLBACK").catch(() => {});
    await probe.query("ROLLBACK").catch(() => {});
    gate.release();
    probe.release();
  }
}

/** Waits until some statement whose text contains `text` is waiting on a lock (a deterministic test's step). */
export async function untilWaiting(pool: pg.Pool, text: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%' || $1 || '%'`,
      [text],
    );
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`nessuna istruzione in attesa che contenga '${text}'`);
}
