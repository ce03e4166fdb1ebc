import pg from "pg";
import { call, cleanup, embeddedUrl, ensureBuild, launch, sleep, snapshot, tempDir, verify, type HttpResult } from "./harness";
import { articleCode, createKey, seedArticles, seedOrder, seedSupplier, seedWarehouse } from "./seed";

/**
 * `npm run soak` (not part of `npm test`): concurrent mixed traffic against the real service on its
 * embedded PostgreSQL for a while — movements, arrivals, cancellations, alignments, searches, list
 * syncs — with a sync reader paging GET /movimenti all along. At the end: the reader has seen every
 * movement exactly once and in order, `verify` passes, and no request got a 5xx. Prints a summary;
 * exits 1 when a check fails.
 *
 *   npm run soak                       # 5 minutes, 8 writers
 *   npm run soak -- --seconds 60 --workers 4
 *   SOAK_SECONDS=1800 npm run soak     # the same through the environment
 */

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const raw = i >= 0 ? process.argv[i + 1] : process.env[`SOAK_${name.toUpperCase()}`];
  const n = Number(raw ?? fallback);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name}: atteso un numero positivo, ricevuto ${raw}`);
  return n;
}

const SECONDS = option("seconds", 300);
const WORKERS = option("workers", 8);
const ARTICLES = 300;
const LOT_ARTICLES = 30;

const log = (m: string) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${m}`);

type Op = "movimento" | "movimento_ripetuto" | "arrivo" | "arrivo_multiplo" | "annullamento" | "allineamento" | "ricerca" | "lista";
const WEIGHTS: [Op, number][] = [
  ["movimento", 30],
  ["movimento_ripetuto", 5],
  ["arrivo", 15],
  ["arrivo_multiplo", 5],
  ["annullamento", 6],
  ["allineamento", 3],
  ["ricerca", 16],
  ["lista", 20],
];

const rnd = (n: number) => Math.floor(Math.random() * n);
const pick = <T>(xs: T[]): T => xs[rnd(xs.length)]!;
function pickOp(): Op {
  const total = WEIGHTS.reduce((s, [, w]) => s + w, 0);
  let r = Math.random() * total;
  for (const [op, w] of WEIGHTS) {
    r -= w;
    if (r < 0) return op;
  }
  return "lista";
}

interface Stats {
  count: number;
  ms: number[];
  status: Record<string, number>;
}
const stats = new Map<Op | "lettore", Stats>();
const fiveHundreds: string[] = [];

function record(op: Op | "lettore", r: HttpResult) {
  const s = stats.get(op) ?? { count: 0, ms: [], status: {} };
  s.count++;
  s.ms.push(r.ms);
  const k = `${r.status}${r.status >= 400 ? ` ${r.body?.codice ?? ""}` : ""}`;
  s.status[k] = (s.status[k] ?? 0) + 1;
  stats.set(op, s);
  if (r.status >= 500 && fiveHundreds.length < 50) fiveHundreds.push(`${op}: ${r.status} ${r.text.slice(0, 200)}`);
}

const pct = (xs: number[], p: number) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function main(): Promise<number> {
  log(`durata ${SECONDS} s, ${WORKERS} scrittori concorrenti, un lettore di sincronizzazione`);
  await ensureBuild(log);
  const dataDir = tempDir("banchina-soak-");
  const s = await launch({ dataDir, env: { DB_POOL_SIZE: "16" } });
  log(`servizio su ${s.base} (DATA_DIR ${dataDir})`);
  const pool = new pg.Pool({ connectionString: embeddedUrl(dataDir), max: 3 });
  pool.on("error", () => {});

  const warehouses = [await seedWarehouse(pool, "M1"), await seedWarehouse(pool, "M2"), await seedWarehouse(pool, "M3")];
  const suppliers = [await seedSupplier(pool, "F1"), await seedSupplier(pool, "F2")];
  const plain = await seedArticles(pool, "SP", ARTICLES, { costo: "2.5" });
  const lotted = await seedArticles(pool, "SL", LOT_ARTICLES, { lotti: true });
  await pool.query("UPDATE articoli SET ean = lpad(id::text, 13, '0') WHERE codice LIKE 'SP%'");
  const rows: { riga: number; lotti: boolean; magazzino: number; fornitore: number }[] = [];
  for (let o = 0; o < 60; o++) {
    const magazzino = warehouses[o % 3]!;
    const fornitore = suppliers[o % 2]!;
    const righe = Array.from({ length: 20 }, (_, i) =>
      i % 5 === 4
        ? { articolo: lotted[(o + i) % LOT_ARTICLES]!, quantita: 30 }
        : { articolo: plain[(o * 7 + i) % ARTICLES]!, quantita: 30 },
    );
    const order = await seedOrder(pool, { numero: `SOAK-${o}`, fornitore, magazzino, righe });
    order.righe.forEach((riga, i) => rows.push({ riga, lotti: i % 5 === 4, magazzino, fornitore }));
  }
  await pool.query(
    "INSERT INTO clienti (codice, ragione_sociale, data) SELECT 'C' || g, 'Cliente ' || g, current_date FROM generate_series(1, 50) g",
  );
  const { chiave: key } = await createKey(pool, ["scrittura"]);
  const arrivals: number[] = [];
  const lotsOf = (articleIdx: number) => [`LS${articleIdx % 3}`, `LS${(articleIdx + 1) % 3}`];

  // Opening stock, so that unloads and transfers have something to take.
  for (const m of warehouses) {
    for (let i = 0; i < ARTICLES; i += 100) {
      await call(s.base, "POST", "/movimenti", {
        key,
        body: {
          natura: "carico",
          magazzino: m,
          righe: plain.slice(i, i + 100).map((_, j) => ({ codice: articleCode("SP", i + j + 1), quantita: 100 })),
        },
      });
    }
    await call(s.base, "POST", "/movimenti", {
      key,
      body: {
        natura: "carico",
        magazzino: m,
        righe: lotted.flatMap((_, j) =>
          lotsOf(j).map((lotto) => ({ codice: articleCode("SL", j + 1), quantita: 100, lotto, scadenza: "2028-01-31" })),
        ),
      },
    });
  }
  log("dati iniziali caricati");

  const deadline = Date.now() + SECONDS * 1000;
  let writing = true;

  async function one(op: Op): Promise<void> {
    const m = pick(warehouses);
    switch (op) {
      case "movimento":
      case "movimento_ripetuto": {
        const natura = pick(["carico", "scarico", "scarico", "trasferimento"]);
        const righe = Array.from({ length: 1 + rnd(5) }, () => {
          if (Math.random() < 0.3) {
            const j = rnd(LOT_ARTICLES);
            return { codice: articleCode("SL", j + 1), quantita: 1 + rnd(4), lotto: pick(lotsOf(j)) };
          }
          return { codice: articleCode("SP", 1 + rnd(ARTICLES)), quantita: Math.round((0.5 + Math.random() * 5) * 1000) / 1000 };
        });
        const body =
          natura === "trasferimento"
            ? { natura, magazzino: m, magazzino_origine: pick(warehouses.filter((x) => x !== m)), righe }
            : { natura, magazzino: m, righe };
        const idem = op === "movimento_ripetuto" ? `soak-${Date.now()}-${rnd(1e9)}` : undefined;
        const r = await call(s.base, "POST", "/movimenti", { key, body, idem });
        record(op, r);
        if (idem) {
          // The client's retry after a lost answer: replayed, or still running.
          const again = await call(s.base, "POST", "/movimenti", { key, body, idem });
          record(op, again);
          if (again.status === 200 && again.headers.get("idempotency-replayed") !== "true")
            fiveHundreds.push(`retry not replayed: ${again.text.slice(0, 200)}`);
        }
        return;
      }
      case "arrivo": {
        const row = pick(rows);
        const body: Record<string, unknown> = { magazzino: row.magazzino, ddt: `DDT-${rnd(500)}`, riga: row.riga, quantita: 1 + rnd(3) };
        if (row.lotti) Object.assign(body, { lotto: `LA${rnd(4)}`, scadenza: "2028-06-30" });
        const r = await call(s.base, "POST", "/arrivi", {
          key,
          body,
          idem: Math.random() < 0.5 ? `soak-a-${Date.now()}-${rnd(1e9)}` : undefined,
        });
        record(op, r);
        if (r.status === 201) arrivals.push(r.body.movimento);
        return;
      }
      case "arrivo_multiplo": {
        const chosen = Array.from({ length: 2 + rnd(10) }, () => pick(rows)).filter((x) => x.magazzino === m);
        if (!chosen.length) return;
        const righe = chosen.map((row) => ({ riga: row.riga, quantita: 1 + rnd(2), ...(row.lotti ? { lotto: `LA${rnd(4)}` } : {}) }));
        const r = await call(s.base, "POST", "/arrivi", { key, body: { magazzino: m, ddt: `DDM-${rnd(200)}`, righe } });
        record(op, r);
        if (r.status === 200) for (const x of r.body.righe) if (x.esito === "registrata") arrivals.push(x.movimento);
        return;
      }
      case "annullamento": {
        if (!arrivals.length) return;
        const id = arrivals.splice(rnd(arrivals.length), 1)[0]!;
        record(op, await call(s.base, "POST", `/arrivi/${id}/annulla`, { key, idem: `soak-c-${id}` }));
        return;
      }
      case "allineamento": {
        const n = 20 + rnd(300);
        const start = rnd(ARTICLES - n > 0 ? ARTICLES - n : 1);
        const righe = Array.from({ length: Math.min(n, ARTICLES) }, (_, i) => ({
          codice: articleCode("SP", 1 + ((start + i) % ARTICLES)),
          contato: rnd(150),
        }));
        if (Math.random() < 0.5)
          righe.push(...lotted.slice(0, 5).map((_, j) => ({ codice: articleCode("SL", j + 1), contato: rnd(80), lotto: pick(lotsOf(j)) })));
        record(
          op,
          await call(s.base, "POST", "/giacenze/allinea", {
            key,
            body: { magazzino: m, causale: "soak", righe, ...(Math.random() < 0.2 ? { simula: true } : {}) },
          }),
        );
        return;
      }
      case "ricerca": {
        const row = pick(rows);
        const body = pick<Record<string, unknown>>([
          { barcode: `R${row.riga}` },
          { barcode: String(pick(plain)).padStart(13, "0") },
          { fornitore: row.fornitore, limite: 5 },
          { magazzino: row.magazzino, includi_evase: true, limite: 10 },
          { codice: articleCode("SP", 1 + rnd(ARTICLES)) },
        ]);
        record(op, await call(s.base, "POST", "/arrivi/cerca", { key, body }));
        return;
      }
      case "lista": {
        const p = pick([
          `/disponibilita?limite=500&magazzino=${m}`,
          `/disponibilita?limite=200&dopo=${rnd(ARTICLES)}`,
          `/clienti?limite=20`,
          `/documenti-vendita?limite=50`,
          `/articoli/${pick(lotted)}/lotti?magazzino=${m}`,
          `/movimenti?limite=100&magazzino=${m}&dopo=${rnd(5000)}`,
        ]);
        record(op, await call(s.base, "GET", p, { key }));
        return;
      }
    }
  }

  const writers = Array.from({ length: WORKERS }, async () => {
    while (Date.now() < deadline) {
      try {
        await one(pickOp());
      } catch (e) {
        fiveHundreds.push(`errore di rete: ${(e as Error).message}`);
        await sleep(100);
      }
    }
  });

  // The sync reader: pages GET /movimenti with its stored cursor from the start, all along.
  const seen: number[] = [];
  let pages = 0;
  const reader = (async () => {
    let cursor = 0;
    for (;;) {
      const done = !writing;
      const r = await call(s.base, "GET", `/movimenti?limite=100&dopo=${cursor}`, { key });
      record("lettore", r);
      if (r.status !== 200) {
        await sleep(200);
        continue;
      }
      pages++;
      for (const mv of r.body.movimenti) seen.push(mv.id);
      cursor = r.body.cursore;
      if (done && !r.body.altri) return;
      if (!r.body.altri) await sleep(50);
    }
  })();

  const ticker = setInterval(() => {
    const total = [...stats.values()].reduce((a, x) => a + x.count, 0);
    log(
      `${Math.max(0, Math.round((deadline - Date.now()) / 1000))} s alla fine · ${total} richieste · ${seen.length} movimenti letti · 5xx ${fiveHundreds.length}`,
    );
  }, 30_000);
  await Promise.all(writers);
  writing = false;
  await reader;
  clearInterval(ticker);

  const all = (await pool.query("SELECT id FROM movimenti ORDER BY id")).rows.map((r) => r.id as number);
  const seenSet = new Set(seen);
  const duplicates = seen.length - seenSet.size;
  const ordered = seen.every((id, i) => i === 0 || id > seen[i - 1]!);
  const missing = all.filter((id) => !seenSet.has(id)).length;
  const complete = duplicates === 0 && ordered && missing === 0 && seen.length === all.length;
  const v = await verify({ dataDir });
  const snap = await snapshot(pool);
  await pool.end();

  console.log("\n=== soak: riepilogo ===");
  console.log(`durata ${SECONDS} s · ${WORKERS} scrittori · ${[...stats.values()].reduce((a, x) => a + x.count, 0)} richieste`);
  console.log("operazione            n     p50   p95   p99 ms   esiti");
  for (const [op, st] of [...stats.entries()].sort()) {
    console.log(
      `${op.padEnd(20)} ${String(st.count).padStart(6)} ${String(pct(st.ms, 50)).padStart(6)} ${String(pct(st.ms, 95)).padStart(5)} ${String(pct(st.ms, 99)).padStart(5)}   ${JSON.stringify(st.status)}`,
    );
  }
  console.log(`database: ${JSON.stringify(snap)}`);
  console.log(
    `lettore di sincronizzazione: ${pages} pagine, ${seen.length} movimenti letti, ${all.length} nel registro, mancanti ${missing}, doppi ${duplicates}, in ordine ${ordered} → ${complete ? "COMPLETO" : "INCOMPLETO"}`,
  );
  console.log(`verify: codice ${v.code} · ${v.stdout.trim().split("\n").join(" · ")}`);
  console.log(`risposte 5xx o errori di rete: ${fiveHundreds.length}`);
  for (const f of fiveHundreds.slice(0, 20)) console.log(`  ${f}`);
  const ok = complete && v.code === 0 && fiveHundreds.length === 0;
  console.log(ok ? "ESITO: OK" : "ESITO: PROBLEMI TROVATI");
  return ok ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (e) {
  console.error(e);
} finally {
  await cleanup();
}
process.exit(code);
