import type pg from "pg";
import { fmtInt, progress, seconds } from "./util";

/**
 * The benchmark's data set, generated with set-based SQL (generate_series, INSERT … SELECT) in a few
 * dozen statements whatever the scale. Everything maintained beside the ledger is derived from it, so
 * `verify` (src/server/modules/verify) passes: balances are the sums of the movements, lots' residual
 * the sums of their movements, order rows' arrived quantity the sums of their arrivals.
 *
 * Layout (scale 1):
 * - 3 warehouses, 200 suppliers, 2,000 clients;
 * - 100,000 articles: in each block of 20 ids a template (…1) with three variants (…2‥…4); ids ending
 *   in 5 are handled in lots (10%), each with two lots per warehouse; every article has a valid EAN-13;
 * - 1,000,000 movements over two years, in operations as the service writes them: single loads and
 *   unloads (api, schermo), transfers (two movements), inventory corrections (ten), arrivals on
 *   historic purchase orders (five rows per delivery note, each row received in full), and 20,000 sales
 *   documents of three rows (ddt, fattura, scontrino, gapless numbers per type and year). Where the
 *   generated history would leave a lot or a balance negative, an opening-inventory movement (the
 *   first operation) covers it, and as many of the latest single unloads are left out, so the ledger
 *   holds exactly the requested number of movements;
 * - 5,000 open purchase-order rows (10 per order, nothing arrived yet).
 */

export interface Counts {
  articoli: number;
  magazzini: number;
  fornitori: number;
  clienti: number;
  movimenti: number;
  vendite: number;
  righeAperte: number;
}

export function countsFor(scale: number): Counts {
  const n = (base: number, min: number) => Math.max(min, Math.round(base * scale));
  return {
    articoli: n(100_000, 100),
    magazzini: 3,
    fornitori: n(200, 5),
    clienti: n(2_000, 10),
    movimenti: n(1_000_000, 2_000),
    vendite: n(20_000, 20),
    righeAperte: n(5_000, 80),
  };
}

const DAYS = 730;

export interface Generated {
  counts: Counts;
  /** What is in the database at the end, from the tables. */
  tables: Record<string, number>;
  ms: number;
}

export async function generate(db: pg.Client, c: Counts): Promise<Generated> {
  const t0 = performance.now();
  const step = async (what: string, sql: string, params: unknown[] = []) => {
    const t = performance.now();
    const r = await db.query(sql, params);
    progress(
      `dati: ${what}${r.rowCount !== null && r.command !== "CREATE" ? ` ${fmtInt(r.rowCount)} righe` : ""} (${seconds(performance.now() - t)})`,
    );
    return r;
  };

  const nArr = Math.max(1, Math.round((c.movimenti * 0.1) / 5));
  const nTr = Math.max(1, Math.round((c.movimenti * 0.1) / 2));
  const nCorr = Math.max(1, Math.round((c.movimenti * 0.02) / 10));
  const nSingle = c.movimenti - 3 * c.vendite - 5 * nArr - 2 * nTr - 10 * nCorr;
  if (nSingle < c.movimenti * 0.3) throw new Error("troppi documenti di vendita per i movimenti richiesti");
  const nOpenOrders = Math.ceil(c.righeAperte / 10);
  const N = c.articoli;

  // The bulk load writes ids and rows that satisfy every foreign key by construction (checked below);
  // replica mode skips the per-row FK and trigger work that would dominate the load time.
  await db.query("SET session_replication_role = replica");
  await db.query("SET synchronous_commit = off");
  await db.query("SET work_mem = '128MB'");
  await db.query("SET maintenance_work_mem = '256MB'");
  // Hash of (key, salt) → 0‥2^31-1; an article id for it that is stockable (never a template); EAN-13.
  await db.query(`CREATE FUNCTION pg_temp.h(x bigint, s int) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
                    AS $$ SELECT hashint8extended(x, s) & 2147483647 $$`);
  await db.query(`CREATE FUNCTION pg_temp.art(h bigint, n int) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE
                    AS $$ SELECT (CASE WHEN (1 + h % n) % 20 = 1 THEN CASE WHEN 2 + h % n <= n THEN 2 + h % n ELSE h % n END
                                       ELSE 1 + h % n END)::int $$`);
  // GS1 check digit of the 12 digits: weights 1, 3, 1, 3, … from the left (one inlined expression).
  await db.query(`CREATE FUNCTION pg_temp.ean13(body text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
                    AS $$ SELECT body || ((10 - ((substr(body, 1, 1)::int + substr(body, 3, 1)::int + substr(body, 5, 1)::int + substr(body, 7, 1)::int + substr(body, 9, 1)::int + substr(body, 11, 1)::int)
                                                 + 3 * (substr(body, 2, 1)::int + substr(body, 4, 1)::int + substr(body, 6, 1)::int + substr(body, 8, 1)::int + substr(body, 10, 1)::int + substr(body, 12, 1)::int)) % 10) % 10)::text $$`);

  await step("magazzini", `INSERT INTO magazzini (id, codice, nome) VALUES (1, 'M1', 'Centrale'), (2, 'M2', 'Nord'), (3, 'M3', 'Sud')`);
  await step(
    "fornitori",
    `INSERT INTO fornitori (id, codice, nome) SELECT g, 'F' || lpad(g::text, 5, '0'), 'Fornitore ' || g || ' S.p.A.' FROM generate_series(1, $1::int) g`,
    [c.fornitori],
  );
  await step(
    "clienti",
    `INSERT INTO clienti (id, codice, ragione_sociale, partita_iva, codice_fiscale, email, telefono, indirizzo, cap, citta,
                          provincia, nazione, data, creato_il)
     SELECT g, 'C' || lpad(g::text, 6, '0'), 'Cliente ' || g || ' S.r.l.', lpad((10000000000 + g * 7919)::text, 11, '0'),
            NULL, 'cliente' || g || '@example.com', '+39 02 ' || lpad(g::text, 7, '0'), 'Via Roma ' || (1 + g % 200),
            lpad((10000 + g % 89999)::text, 5, '0'), (ARRAY['Milano', 'Torino', 'Bologna', 'Verona', 'Bari'])[1 + g % 5],
            (ARRAY['MI', 'TO', 'BO', 'VR', 'BA'])[1 + g % 5], 'IT',
            current_date - ${DAYS} + (g::bigint * ${DAYS} / $1::int)::int,
            (current_date - ${DAYS} + (g::bigint * ${DAYS} / $1::int)::int) + time '09:00'
       FROM generate_series(1, $1::int) g`,
    [c.clienti],
  );
  await step(
    "articoli",
    `INSERT INTO articoli (id, codice, ean, descrizione, unita, gestione_lotti, costo_standard, modello_id, ha_varianti, creato_il)
     SELECT g, 'ART-' || lpad(g::text, 7, '0'), pg_temp.ean13('80' || lpad(g::text, 10, '0')),
            CASE WHEN g % 20 = 1 THEN 'Modello ' ELSE 'Articolo ' END || g || ' ' || (ARRAY['vite', 'dado', 'rondella', 'staffa', 'tassello'])[1 + g % 5],
            'PZ', g % 10 = 5, CASE WHEN g % 3 <> 0 THEN (1 + g % 500) / 10.0 END,
            CASE WHEN g % 20 BETWEEN 2 AND 4 THEN g - g % 20 + 1 END, g % 20 = 1,
            current_date - ${DAYS} - 30
       FROM generate_series(1, $1::int) g`,
    [N],
  );

  // The plan: one row per operation in time order, then one per movement with every value derived
  // from a hash of (kind, number, position), so that the whole history is a handful of statements.
  await step(
    "piano delle operazioni",
    `CREATE TEMP TABLE piano_op AS
     SELECT row_number() OVER (ORDER BY (s.n - 0.5) / s.tot, s.k)::int AS op, s.kind, s.n, s.size, s.k
       FROM (SELECT 'vendita' AS kind, 1 AS k, n, 3 AS size, $1::int AS tot FROM generate_series(1, $1::int) n
             UNION ALL SELECT 'arrivo', 2, n, 5, $2::int FROM generate_series(1, $2::int) n
             UNION ALL SELECT 'trasferimento', 3, n, 2, $3::int FROM generate_series(1, $3::int) n
             UNION ALL SELECT 'correzione', 4, n, 10, $4::int FROM generate_series(1, $4::int) n
             UNION ALL SELECT 'singolo', 5, n, 1, $5::int FROM generate_series(1, $5::int) n) s`,
    [c.vendite, nArr, nTr, nCorr, nSingle],
  );
  await step(
    "piano dei movimenti",
    `CREATE TEMP TABLE piano_mov AS
     SELECT t.seq, t.op, t.kind, t.n, t.pos, t.art, t.mag, t.quantita, t.prezzo, t.origine,
            CASE WHEN t.quantita > 0 THEN 'carico' ELSE 'scarico' END AS natura_segno,
            CASE WHEN t.art % 10 = 5 THEN ((t.art - 5) / 10) * 6 + (t.mag - 1) * 2 + t.lk + 1 END AS lotto
       FROM (SELECT u.*, pg_temp.art(pg_temp.h(u.key, 1), $1::int) AS art,
                    CASE u.kind WHEN 'singolo' THEN 1 + pg_temp.h(u.key, 2) % 3
                                WHEN 'trasferimento' THEN 1 + (pg_temp.h(u.key, 2) + u.pos - 1) % 3
                                ELSE 1 + u.n % 3 END AS mag,
                    CASE u.kind
                      WHEN 'singolo' THEN CASE WHEN pg_temp.h(u.key, 3) % 10 < 7
                                               THEN 1 + pg_temp.h(u.key, 4) % 40 + CASE WHEN pg_temp.h(u.key, 5) % 7 = 0 THEN 0.5 ELSE 0 END
                                               ELSE -(1 + pg_temp.h(u.key, 4) % 10) END
                      WHEN 'trasferimento' THEN (1 + pg_temp.h(u.key, 4) % 10) * CASE WHEN u.pos = 1 THEN -1 ELSE 1 END
                      WHEN 'correzione' THEN (1 + pg_temp.h(u.key, 4) % 5) * CASE WHEN pg_temp.h(u.key, 3) % 2 = 0 THEN 1 ELSE -1 END
                      WHEN 'arrivo' THEN 1 + pg_temp.h(u.key, 4) % 50
                      ELSE -(1 + pg_temp.h(u.key, 4) % 5) END::numeric AS quantita,
                    CASE WHEN u.kind <> 'correzione' THEN (1 + pg_temp.h(u.key, 6) % 5000) / 100.0 END AS prezzo,
                    CASE u.kind WHEN 'singolo' THEN CASE WHEN u.n % 3 = 0 THEN 'api' ELSE 'schermo' END
                                WHEN 'trasferimento' THEN CASE WHEN u.n % 3 = 0 THEN 'api' ELSE 'schermo' END
                                WHEN 'correzione' THEN 'correzione' WHEN 'arrivo' THEN 'arrivo' ELSE 'vendita' END AS origine,
                    (pg_temp.h(u.key, 7) % 2)::int AS lk
               FROM (SELECT row_number() OVER (ORDER BY o.op, p) AS seq, o.op, o.kind, o.n, p AS pos,
                            -- transfers share one key for both halves: same article, same lot code
                            ((CASE WHEN o.kind = 'trasferimento' THEN o.n::bigint * 16 ELSE o.n::bigint * 16 + p END) * 8 + o.k) AS key
                       FROM piano_op o CROSS JOIN LATERAL generate_series(1, o.size) p) u) t`,
    [N],
  );
  await step(
    "aperture d'inventario (giacenze e lotti che la storia lascerebbe negativi)",
    `CREATE TEMP TABLE aperture AS
     SELECT row_number() OVER (ORDER BY art, mag, lotto)::int AS seq, art, mag, lotto, -sum(quantita) + 10 + art % 20 AS quantita
       FROM piano_mov GROUP BY art, mag, lotto HAVING sum(quantita) < 0`,
  );
  const k = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM aperture")).rows[0]!.n;
  // Leaving out unloads only raises the sums: nothing covered by an opening goes negative again.
  await step(
    `tolgo gli ultimi ${fmtInt(k)} scarichi singoli (il totale resta ${fmtInt(c.movimenti)})`,
    `DELETE FROM piano_mov WHERE seq IN (SELECT seq FROM piano_mov WHERE kind = 'singolo' AND quantita < 0 ORDER BY seq DESC LIMIT $1)`,
    [k],
  );
  await db.query(`DELETE FROM piano_op o WHERE kind = 'singolo' AND NOT EXISTS (SELECT 1 FROM piano_mov m WHERE m.op = o.op)`);
  // Final ids: operation 1 is the opening inventory, movements 1‥k its rows; then the history in time order.
  await step(
    "numerazione finale",
    `CREATE TEMP TABLE ops AS
     SELECT o.*, (1 + row_number() OVER (ORDER BY o.op))::int AS id FROM piano_op o`,
  );
  const nOps = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM ops")).rows[0]!.n;
  await db.query(`ALTER TABLE ops ADD COLUMN giorno int, ADD COLUMN istante timestamptz`);
  await db.query(
    `UPDATE ops SET giorno = ((id - 2)::bigint * ${DAYS} / $1::int)::int,
                    istante = (current_date - ${DAYS} + ((id - 2)::bigint * ${DAYS} / $1::int)::int) + time '07:00'
                              + make_interval(secs => ((((id - 2)::float8 * ${DAYS} / $1::int) - ((id - 2)::bigint * ${DAYS} / $1::int)) * 11 * 3600))`,
    [nOps],
  );
  await db.query("CREATE INDEX ON ops (op)");
  await db.query("ANALYZE ops; ANALYZE piano_mov; ANALYZE aperture");

  await step(
    "operazioni",
    `INSERT INTO operazioni (id, origine, ddt, fornitore_id, creato_il)
     SELECT 1, 'correzione', NULL, NULL, (current_date - ${DAYS} - 1) + time '07:00'
     UNION ALL
     SELECT id, CASE kind WHEN 'singolo' THEN CASE WHEN n % 3 = 0 THEN 'api' ELSE 'schermo' END
                          WHEN 'trasferimento' THEN CASE WHEN n % 3 = 0 THEN 'api' ELSE 'schermo' END
                          ELSE kind END,
            CASE WHEN kind = 'arrivo' THEN 'DDT-' || lpad(n::text, 7, '0') END,
            CASE WHEN kind = 'arrivo' THEN 1 + n % $1::int END, istante
       FROM ops`,
    [c.fornitori],
  );
  // Secondary indexes of the ledger are rebuilt after the load (faster than a million index insertions),
  // with their definitions as the migrations made them.
  const ledgerIndexes = (
    await db.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'movimenti' AND indexname <> 'movimenti_pkey'`,
    )
  ).rows;
  for (const ix of ledgerIndexes) await db.query(`DROP INDEX "${ix.name}"`);
  await step(
    "movimenti: aperture",
    `INSERT INTO movimenti (id, operazione_id, data, registrato_il, origine, natura, causale, magazzino_id, articolo_id, quantita, prezzo, lotto_id)
     SELECT seq, 1, current_date - ${DAYS} - 1, (current_date - ${DAYS} - 1) + time '07:00', 'correzione', 'carico',
            'Apertura inventario', mag, art, quantita, NULL, lotto
       FROM aperture`,
  );
  await step(
    "movimenti: storia",
    `INSERT INTO movimenti (id, operazione_id, data, registrato_il, origine, natura, causale, magazzino_id, articolo_id, quantita, prezzo,
                            lotto_id, riferimento_tipo, riferimento_id)
     SELECT $1::int + row_number() OVER (ORDER BY m.seq), o.id, current_date - ${DAYS} + o.giorno,
            o.istante + make_interval(secs => m.pos * 0.01), m.origine,
            CASE WHEN m.kind = 'trasferimento' THEN 'trasferimento' ELSE m.natura_segno END,
            CASE m.kind WHEN 'arrivo' THEN 'DDT DDT-' || lpad(m.n::text, 7, '0') WHEN 'vendita' THEN 'Vendita ' || m.n
                        WHEN 'correzione' THEN 'Allineamento inventario' WHEN 'trasferimento' THEN 'Trasferimento' END,
            m.mag, m.art, m.quantita, m.prezzo, m.lotto,
            CASE m.kind WHEN 'arrivo' THEN 'riga_ordine' WHEN 'vendita' THEN 'documento_vendita' END,
            CASE m.kind WHEN 'arrivo' THEN (m.n - 1) * 5 + m.pos WHEN 'vendita' THEN m.n END
       FROM piano_mov m JOIN ops o ON o.op = m.op
      ORDER BY m.seq`,
    [k],
  );
  {
    const t = performance.now();
    for (const ix of ledgerIndexes) await db.query(ix.def);
    progress(`dati: ${ledgerIndexes.length} indici di movimenti ricostruiti (${seconds(performance.now() - t)})`);
  }
  // Replica mode leaves the ledger's INSERT trigger out: the monthly net changes that as-of reads start from
  // (migration 20261128330000) are derived here, as the migration back-fills them, in one statement.
  await step(
    "movimenti mensili (variazioni nette per articolo, magazzino, mese)",
    `INSERT INTO movimenti_mensili (articolo_id, magazzino_id, ubicazione_id, mese, quantita)
     SELECT articolo_id, magazzino_id, coalesce(ubicazione_id, 0), date_trunc('month', data)::date, sum(quantita)
       FROM movimenti GROUP BY 1, 2, 3, 4`,
  );
  // The events the ledger's append would have recorded, one per operation (ledger.queries.ts EVENT_OF_ORIGIN),
  // so the events feed read from 0 (testa-eventi) reads a history as long as the ledger's. The opening
  // inventory (operation 1, tens of thousands of rows) is recorded as the alignment would write it, by calls of
  // 500 rows appended to one operation: one event per call, not one event whose size grows with the scale.
  await step(
    "eventi (uno per operazione, come li scrive il registro)",
    `INSERT INTO eventi (id, tipo, creato_il, dati)
     SELECT row_number() OVER (ORDER BY operazione_id, CASE WHEN operazione_id = 1 THEN (id - 1) / 500 ELSE 0 END),
            CASE min(origine) WHEN 'arrivo' THEN 'arrivo.registrato' WHEN 'correzione' THEN 'giacenze.allineate'
                              WHEN 'vendita' THEN 'documento_vendita.emesso' ELSE 'movimenti.registrati' END,
            max(registrato_il), jsonb_build_object('operazione', operazione_id, 'movimenti', jsonb_agg(id ORDER BY id))
       FROM movimenti GROUP BY operazione_id, CASE WHEN operazione_id = 1 THEN (id - 1) / 500 ELSE 0 END`,
  );
  // The movement id of each planned row, for the sales rows that point at theirs.
  await db.query(`CREATE TEMP TABLE id_mov AS SELECT seq, $1::int + row_number() OVER (ORDER BY seq) AS id FROM piano_mov`, [k]);

  await step(
    "ordini d'acquisto (storici evasi e aperti)",
    `INSERT INTO ordini_acquisto (id, numero, fornitore_id, magazzino_id, data, stato, creato_il)
     SELECT o.n, 'OA-S' || lpad(o.n::text, 7, '0'), 1 + o.n % $1::int, 1 + o.n % 3, current_date - ${DAYS} + o.giorno - 10, 'evaso',
            o.istante - interval '10 days'
       FROM ops o WHERE o.kind = 'arrivo'
     UNION ALL
     SELECT $2::int + g, 'OA-' || lpad(g::text, 7, '0'), 1 + g % $1::int, 1 + g % 3, current_date - g % 60, 'aperto',
            (current_date - g % 60) + time '10:00'
       FROM generate_series(1, $3::int) g`,
    [c.fornitori, nArr, nOpenOrders],
  );
  await step(
    "righe d'ordine (storiche ricevute per intero e aperte)",
    `INSERT INTO righe_ordine (id, ordine_id, posizione, numero_riga, articolo_id, ordinata, arrivata, prezzo, stato, creato_il)
     SELECT (m.n - 1) * 5 + m.pos, m.n, m.pos, m.pos, m.art, m.quantita, m.quantita, m.prezzo, 'evasa', o.istante - interval '10 days'
       FROM piano_mov m JOIN ops o ON o.op = m.op WHERE m.kind = 'arrivo'
     UNION ALL
     SELECT $1::int * 5 + g, $1::int + 1 + (g - 1) / 10, 1 + (g - 1) % 10, 1 + (g - 1) % 10, pg_temp.art(pg_temp.h(g, 11), $2::int),
            10 + pg_temp.h(g, 12) % 91, 0, (1 + pg_temp.h(g, 13) % 5000) / 100.0, 'aperta', (current_date - ((g - 1) / 10 + 1) % 60) + time '10:00'
       FROM generate_series(1, $3::int) g`,
    [nArr, N, c.righeAperte],
  );
  await step(
    "documenti di vendita",
    `INSERT INTO documenti_vendita (id, tipo, anno, progressivo, numero, data, cliente_id, magazzino_id, operazione_id,
                                   imponibile, imposta, totale, creato_il)
     SELECT d.n, d.tipo, d.anno, d.progressivo, d.anno || '/' || lpad(d.progressivo::text, 6, '0'), d.data, 1 + d.n % $1::int,
            1 + d.n % 3, d.id, s.imponibile, round(s.imponibile * 0.22, 2), s.imponibile + round(s.imponibile * 0.22, 2), d.istante
       FROM (SELECT o.*, (ARRAY['ddt', 'fattura', 'scontrino'])[1 + o.n % 3] AS tipo,
                    extract(year FROM current_date - ${DAYS} + o.giorno)::int AS anno, current_date - ${DAYS} + o.giorno AS data,
                    row_number() OVER (PARTITION BY 1 + o.n % 3, extract(year FROM current_date - ${DAYS} + o.giorno) ORDER BY o.n)::int AS progressivo
               FROM ops o WHERE o.kind = 'vendita') d
       JOIN (SELECT n, sum(round(-quantita * round(prezzo * 1.4, 2), 2)) AS imponibile FROM piano_mov WHERE kind = 'vendita' GROUP BY n) s
         ON s.n = d.n`,
    [c.clienti],
  );
  await step(
    "righe dei documenti di vendita",
    `INSERT INTO righe_documento_vendita (documento_id, posizione, articolo_id, descrizione, quantita, prezzo, sconto, aliquota_iva,
                                         importo, lotto_id, movimento_id)
     SELECT m.n, m.pos, m.art, a.descrizione, -m.quantita, round(m.prezzo * 1.4, 2), 0, 22,
            round(-m.quantita * round(m.prezzo * 1.4, 2), 2), m.lotto, i.id
       FROM piano_mov m JOIN id_mov i ON i.seq = m.seq JOIN articoli a ON a.id = m.art
      WHERE m.kind = 'vendita'
      ORDER BY m.n, m.pos`,
  );
  await step(
    "numeratori",
    `INSERT INTO numeratori (tipo, anno, ultimo) SELECT tipo, anno, max(progressivo) FROM documenti_vendita GROUP BY tipo, anno`,
  );
  await step(
    "giacenze (somme del registro)",
    `INSERT INTO giacenze (articolo_id, magazzino_id, quantita, aggiornata_il)
     SELECT articolo_id, magazzino_id, sum(quantita), max(registrato_il) FROM movimenti GROUP BY articolo_id, magazzino_id`,
  );
  await step(
    "lotti (residui = somme del registro)",
    `INSERT INTO lotti (id, articolo_id, magazzino_id, codice, scadenza, residua, creato_il)
     SELECT li * 6 + (w - 1) * 2 + lk + 1, li * 10 + 5, w, 'L' || (24 + lk) || '-' || lpad((li % 1000)::text, 3, '0'),
            current_date + 30 + ((li * 7 + lk * 90) % 700)::int, coalesce(s.somma, 0), current_date - ${DAYS} - 30
       FROM generate_series(0, ($1::int - 5) / 10) li CROSS JOIN generate_series(1, 3) w CROSS JOIN generate_series(0, 1) lk
       LEFT JOIN (SELECT lotto_id, sum(quantita) AS somma FROM movimenti WHERE lotto_id IS NOT NULL GROUP BY lotto_id) s
         ON s.lotto_id = li * 6 + (w - 1) * 2 + lk + 1`,
    [N],
  );
  await step(
    "ultimo prezzo d'arrivo degli articoli",
    `UPDATE articoli a SET ultimo_prezzo_arrivo = s.prezzo
       FROM (SELECT DISTINCT ON (articolo_id) articolo_id, prezzo FROM movimenti WHERE origine = 'arrivo' ORDER BY articolo_id, id DESC) s
      WHERE a.id = s.articolo_id`,
  );
  for (const [table, seq] of [
    ["magazzini", "magazzini_id_seq"],
    ["fornitori", "fornitori_id_seq"],
    ["clienti", "clienti_id_seq"],
    ["articoli", "articoli_id_seq"],
    ["lotti", "lotti_id_seq"],
    ["operazioni", "operazioni_id_seq"],
    ["movimenti", "movimenti_id_seq"],
    ["ordini_acquisto", "ordini_acquisto_id_seq"],
    ["righe_ordine", "righe_ordine_id_seq"],
    ["documenti_vendita", "documenti_vendita_id_seq"],
    ["eventi", "eventi_id_seq"],
  ] as const) {
    // The sync bound of the lists reads these sequences: they must stand at the highest id.
    await db.query(`SELECT setval('${seq}', (SELECT max(id) FROM ${table}))`);
  }
  await db.query("SET session_replication_role = DEFAULT");
  await db.query("DROP TABLE piano_op, piano_mov, aperture, ops, id_mov");

  // What replica mode did not check: every reference points at a row.
  const t1 = performance.now();
  const dangling = await db.query<{ what: string; n: number }>(`
    SELECT 'movimenti.operazione_id' AS what, count(*)::int AS n FROM movimenti m WHERE NOT EXISTS (SELECT 1 FROM operazioni o WHERE o.id = m.operazione_id)
    UNION ALL SELECT 'movimenti.articolo_id', count(*)::int FROM movimenti m WHERE NOT EXISTS (SELECT 1 FROM articoli a WHERE a.id = m.articolo_id)
    UNION ALL SELECT 'movimenti.lotto_id', count(*)::int FROM movimenti m WHERE m.lotto_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM lotti l WHERE l.id = m.lotto_id)
    UNION ALL SELECT 'movimenti.magazzino_id', count(*)::int FROM movimenti WHERE magazzino_id NOT BETWEEN 1 AND 3
    UNION ALL SELECT 'righe_ordine.ordine_id', count(*)::int FROM righe_ordine r WHERE NOT EXISTS (SELECT 1 FROM ordini_acquisto o WHERE o.id = r.ordine_id)
    UNION ALL SELECT 'righe_documento_vendita.documento_id', count(*)::int FROM righe_documento_vendita r WHERE NOT EXISTS (SELECT 1 FROM documenti_vendita d WHERE d.id = r.documento_id)
    UNION ALL SELECT 'lotti di articoli non a lotti', count(*)::int FROM lotti l JOIN articoli a ON a.id = l.articolo_id WHERE NOT a.gestione_lotti
    UNION ALL SELECT 'movimenti di modelli', count(*)::int FROM movimenti m JOIN articoli a ON a.id = m.articolo_id WHERE a.ha_varianti`);
  const bad = dangling.rows.filter((r) => r.n > 0);
  if (bad.length > 0) throw new Error(`dati generati incoerenti: ${bad.map((b) => `${b.what}: ${b.n}`).join(", ")}`);
  progress(`dati: riferimenti controllati (${seconds(performance.now() - t1)})`);

  const t2 = performance.now();
  await db.query("VACUUM (ANALYZE)");
  progress(`dati: VACUUM ANALYZE (${seconds(performance.now() - t2)})`);

  const tables: Record<string, number> = {};
  const r = await db.query<{ t: string; n: number }>(`
    SELECT t, n FROM (
      SELECT 1 AS o, 'articoli' AS t, count(*)::int AS n FROM articoli UNION ALL SELECT 2, 'articoli a lotti', count(*)::int FROM articoli WHERE gestione_lotti
      UNION ALL SELECT 3, 'modelli con varianti', count(*)::int FROM articoli WHERE ha_varianti
      UNION ALL SELECT 4, 'varianti', count(*)::int FROM articoli WHERE modello_id IS NOT NULL
      UNION ALL SELECT 5, 'magazzini', count(*)::int FROM magazzini UNION ALL SELECT 6, 'fornitori', count(*)::int FROM fornitori
      UNION ALL SELECT 7, 'clienti', count(*)::int FROM clienti UNION ALL SELECT 8, 'operazioni', count(*)::int FROM operazioni
      UNION ALL SELECT 9, 'movimenti', count(*)::int FROM movimenti UNION ALL SELECT 10, 'giacenze', count(*)::int FROM giacenze
      UNION ALL SELECT 11, 'lotti', count(*)::int FROM lotti UNION ALL SELECT 12, 'ordini aperti', count(*)::int FROM ordini_acquisto WHERE stato <> 'evaso'
      UNION ALL SELECT 13, 'righe d''ordine aperte', count(*)::int FROM righe_ordine WHERE arrivata < ordinata
      UNION ALL SELECT 14, 'righe d''ordine ricevute', count(*)::int FROM righe_ordine WHERE arrivata = ordinata
      UNION ALL SELECT 15, 'documenti di vendita', count(*)::int FROM documenti_vendita
      UNION ALL SELECT 16, 'righe di vendita', count(*)::int FROM righe_documento_vendita
      UNION ALL SELECT 17, 'movimenti mensili', count(*)::int FROM movimenti_mensili
      UNION ALL SELECT 18, 'eventi', count(*)::int FROM eventi) x
     ORDER BY o`);
  for (const row of r.rows) tables[row.t] = row.n;
  return { counts: c, tables, ms: performance.now() - t0 };
}
