import net from "node:net";
import { afterAll, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { caller, countRows, rest, seedArticle, seedKey, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { type PrintWorker, type PrintWorkerSettings, type Sender, sendRaw, startPrintWorker } from "./print-worker";

/**
 * Printers and print jobs (docs/api.md section 13): a TCP listener on loopback is the printer. The job's bytes
 * arrive once (retried requests, two workers), a closed port ends the job `fallita` with its reason and
 * leaves the arrival it labels registered, and only an administrator adds a printer.
 */

let t: TestDb;
let key: string;
let art: number;
let mag: number;
let riga: number;
const admin: Actor = { kind: "utente", id: 1, username: "amministratore-test", ruolo: "amministratore" };
const operator: Actor = { kind: "utente", id: 2, username: "operatore-test", ruolo: "operatore" };

/** A printer on loopback: every connection's bytes, in the order they arrived. */
async function fakePrinter() {
  const received: string[] = [];
  const server = net.createServer((socket) => {
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("end", () => {
      received.push(Buffer.concat(chunks).toString());
      socket.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  return { port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A port nothing listens on: taken, then released. */
async function closedPort(): Promise<number> {
  const p = await fakePrinter();
  await p.close();
  return p.port;
}

const workers: PrintWorker[] = [];
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
});
const worker = (settings: Partial<PrintWorkerSettings> = {}) => {
  const w = startPrintWorker(t.prisma, { timeoutMs: 2000, retryDelayMs: 50, pollMs: 100, ...settings }, () => {});
  workers.push(w);
  return w;
};
/** The only worker running (the earlier tests' stopped): what it counts is every attempt made. */
async function soleWorker(settings: Partial<PrintWorkerSettings> = {}) {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  return worker(settings);
}
/** sendRaw, counting its attempts per port. */
function countingSender() {
  const attempts = new Map<number, number>();
  const send: Sender = (host, port, data, timeoutMs) => {
    attempts.set(port, (attempts.get(port) ?? 0) + 1);
    return sendRaw(host, port, data, timeoutMs);
  };
  return { send, attempts: (port: number) => attempts.get(port) ?? 0 };
}

/** A misbehaving printer on loopback: `onSocket` decides what it does with each connection, counted. */
async function oddPrinter(onSocket: (socket: net.Socket, received: Buffer[]) => void) {
  const sockets = new Set<net.Socket>();
  const received: Buffer[] = [];
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on("error", () => {});
    onSocket(socket, received);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    bytes: () => Buffer.concat(received).toString(),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

async function jobState(id: number) {
  for (let i = 0; i < 600; i++) {
    const job = (await rest("GET", `/stampe/${id}`, { key })).body;
    if (job.stato === "stampata" || job.stato === "fallita") return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`la stampa ${id} non si è conclusa`);
}

test.beforeAll(async ({ db, key: k }) => {
  t = db;
  key = k;
  mag = (await seedWarehouse(t.prisma, "MAG1")).id;
  art = (await seedArticle(t.prisma, "ACQ-05", { ean: "8001234567897", lotti: true })).id;
  const f = (await seedSupplier(t.prisma, "F1")).id;
  riga = (
    await seedOrder(t.prisma, {
      numero: "OA-1",
      fornitore: f,
      magazzino: mag,
      data: "2026-11-20",
      righe: [{ articolo: art, quantita: "100", prezzo: "1" }],
    })
  ).righe[0]!;
});

async function addPrinter(nome: string, port: number) {
  return caller(t, admin, "trpc").printers.add({ nome, indirizzo: `127.0.0.1:${port}` });
}
const lot = { tipo: "lotto", articolo: 0, lotto: "L24-118", scadenza: "2027-03-01", quantita: 24 };

test("only an administrator adds a printer; the address is in the administrative log; GET /stampanti lists it", async () => {
  const p = await addPrinter("Banchina 1", 9100);
  expect(p).toMatchObject({ nome: "Banchina 1", indirizzo: "127.0.0.1:9100", dimensione: "100x50", attiva: true });
  const { rows } = await t.pool.query(
    "SELECT azione, oggetto, dettagli, autore_nome FROM registro_amministrativo ORDER BY id DESC LIMIT 1",
  );
  expect(rows[0]).toMatchObject({ azione: "stampante.aggiunta", oggetto: "Banchina 1", autore_nome: "amministratore-test" });
  expect(rows[0].dettagli).toContain("127.0.0.1:9100");
  await expect(caller(t, operator, "trpc").printers.add({ nome: "X", indirizzo: "10.0.0.1:9100" })).rejects.toMatchObject({
    cause: { codice: "permesso_negato" },
  });
  await expect(
    caller(t, { kind: "chiave", id: 1, nome: "k", permessi: ["lettura", "scrittura"] }).printers.add({ nome: "Y", indirizzo: "h:1" }),
  ).rejects.toMatchObject({
    cause: { codice: "permesso_negato" },
  });
  await expect(addPrinter("Banchina 1", 9101)).rejects.toMatchObject({ cause: { codice: "stampante_esistente" } });
  await expect(caller(t, admin, "trpc").printers.add({ nome: "Z", indirizzo: "host:99999" })).rejects.toThrow(/host:porta/);
  const list = await rest("GET", "/stampanti", { key });
  expect(list.status).toBe(200);
  expect(list.body.stampanti).toContainEqual(expect.objectContaining({ id: p.id, indirizzo: "127.0.0.1:9100" }));
});

test("a job's ZPL reaches the printer once, even when the request is retried with its Idempotency-Key", async () => {
  const printer = await fakePrinter();
  const p = await addPrinter("Loopback", printer.port);
  const body = { etichetta: { ...lot, articolo: art }, copie: 2 };
  const headers = { "Idempotency-Key": "stampa-1" };
  const first = await rest("POST", `/stampanti/${p.id}/stampa`, { key, body, headers });
  expect(first.status).toBe(202);
  expect(first.body).toMatchObject({ stato: "in_coda", copie: 2, stampante: { id: p.id }, avviso: null });
  const again = await rest("POST", `/stampanti/${p.id}/stampa`, { key, body, headers });
  expect([again.status, again.body.id, again.headers.get("idempotency-replayed")]).toEqual([202, first.body.id, "true"]);
  worker();
  expect(await jobState(first.body.id)).toMatchObject({ stato: "stampata", motivo: null });
  await new Promise((r) => setTimeout(r, 300));
  expect(printer.received).toHaveLength(1);
  expect(printer.received[0]).toMatch(
    /^\^XA\n[\s\S]*\^FH\\\^FD>;>80108001234567897172703013024>810>6L24-118\^FS[\s\S]*\^PQ2,0,1,Y\n\^XZ\n$/,
  );
  await printer.close();
});

test("two workers (two instances) never send a job twice", async () => {
  const printer = await fakePrinter();
  const p = await addPrinter("Due istanze", printer.port);
  const ids: number[] = [];
  for (let i = 0; i < 12; i++)
    ids.push(
      (await rest("POST", `/stampanti/${p.id}/stampa`, { key, body: { etichetta: { ...lot, articolo: art, lotto: `L${i}` } } })).body.id,
    );
  worker();
  worker();
  for (const id of ids) expect((await jobState(id)).stato).toBe("stampata");
  expect(printer.received).toHaveLength(12);
  expect(new Set(printer.received).size).toBe(12);
  await printer.close();
});

test("a printer that is off: the job fails with the reason after one retry, the arrival stays registered", async () => {
  const p = await addPrinter("Spenta", await closedPort());
  const arrival = await rest("POST", "/arrivi", {
    key,
    body: { magazzino: mag, ddt: "DDT-1", riga, quantita: 5, lotto: "L9", scadenza: "2027-01-01" },
  });
  expect(arrival.status).toBe(201);
  const job = await rest("POST", `/stampanti/${p.id}/stampa`, { key, body: { etichetta: { ...lot, articolo: art, lotto: "L9" } } });
  expect(job.status).toBe(202);
  worker();
  const done = await jobState(job.body.id);
  expect(done.stato).toBe("fallita");
  expect(done.motivo).toMatch(/^connessione rifiutata da 127\.0\.0\.1:\d+ \(2 tentativi\)$/);
  const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM movimenti WHERE id = $1", [arrival.body.movimento]);
  expect(rows[0].n).toBe(1);
});

test("a job left in_invio by a stopped instance ends fallita 'esito incerto', never sent again", async () => {
  const p = await addPrinter("Interrotta", 9100);
  const { rows } = await t.pool.query(
    `INSERT INTO stampe (stampante_id, stato, etichetta, zpl, autore, inviata_il) VALUES ($1, 'in_invio', '{"tipo":"riga","ordine":1}', '^XA^XZ', 'test', now() - interval '1 hour') RETURNING id`,
    [p.id],
  );
  const [fresh] = (
    await t.pool.query(
      `INSERT INTO stampe (stampante_id, stato, etichetta, zpl, autore, inviata_il) VALUES ($1, 'in_invio', '{"tipo":"riga","ordine":1}', '^XA^XZ', 'test', now()) RETURNING id`,
      [p.id],
    )
  ).rows;
  worker();
  const job = await jobState(rows[0].id);
  expect(job.stato).toBe("fallita");
  expect(job.motivo).toMatch(/^esito incerto/);
  expect((await rest("GET", `/stampe/${fresh.id}`, { key })).body.stato).toBe("in_invio");
});

test("print refusals: unknown printer or job (404), a read-only key, copies over 100, an unknown article, a bad label", async () => {
  const p = await addPrinter("Rifiuti", 9100);
  const before = await countRows(t, "stampe");
  const post = (path: string, body: unknown, k = key) => rest("POST", path, { key: k, body });
  expect((await post(`/stampanti/999999/stampa`, { etichetta: { ...lot, articolo: art } })).body.codice).toBe("non_trovato");
  expect((await rest("GET", `/stampe/999999`, { key })).status).toBe(404);
  const reader = (await seedKey(t.prisma, ["lettura"])).chiave;
  expect((await post(`/stampanti/${p.id}/stampa`, { etichetta: { ...lot, articolo: art } }, reader)).body.codice).toBe("permesso_negato");
  expect((await post(`/stampanti/${p.id}/stampa`, { etichetta: { ...lot, articolo: art }, copie: 101 })).body).toMatchObject({
    codice: "richiesta_non_valida",
  });
  expect((await post(`/stampanti/${p.id}/stampa`, { etichetta: { ...lot, articolo: 999999 } })).body.codice).toBe("articolo_non_trovato");
  expect(
    (await post(`/stampanti/${p.id}/stampa`, { etichetta: { tipo: "ubicazione", magazzino: mag, ubicazione: "NO" } })).body.codice,
  ).toBe("ubicazione_non_trovata");
  expect(
    (await post(`/stampanti/${p.id}/stampa`, { etichetta: { tipo: "ubicazione", magazzino: 999999, ubicazione: "NO" } })).body.codice,
  ).toBe("magazzino_non_trovato");
  expect((await post(`/stampanti/${p.id}/stampa`, { etichetta: { tipo: "riga", ordine: 999999 } })).body.codice).toBe("non_trovato");
  const order = (await t.pool.query("SELECT ordine_id FROM righe_ordine WHERE id = $1", [riga])).rows[0].ordine_id;
  expect((await post(`/stampanti/${p.id}/stampa`, { etichetta: { tipo: "riga", ordine: order, riga: 999999 } })).body.codice).toBe(
    "riga_non_trovata",
  );
  expect((await post(`/stampanti/${p.id}/stampa`, { etichetta: { tipo: "fattura" } })).body.codice).toBe("richiesta_non_valida");
  expect((await post(`/stampanti/${p.id}/stampa`, { etichetta: { tipo: "collo", sscc: "080012340000000011" } })).body.codice).toBe(
    "collo_non_trovato",
  );
  expect((await post(`/stampanti/${p.id}/stampa`, { etichetta: { tipo: "collo", sscc: "080012340000000012" } })).body.codice).toBe(
    "sscc_non_valido",
  );
  expect(await countRows(t, "stampe")).toBe(before);
  const big = (await seedWarehouse(t.prisma, "GRANDE")).id;
  await t.pool.query(
    `INSERT INTO ubicazioni (magazzino_id, codice, tipo) SELECT $1, 'X-' || lpad(n::text, 4, '0'), 'stoccaggio' FROM generate_series(1, 501) n`,
    [big],
  );
  expect(
    (await post(`/stampanti/${p.id}/stampa`, { etichetta: { tipo: "ubicazione", magazzino: big, da: "X-0001", a: "X-9999" } })).body.codice,
  ).toBe("troppe_righe");
});

test("a printer that accepts and never reads nor closes: fallita with the timeout, sent once and never retried", async () => {
  // The listener never reads: the bytes sit in its buffer; nothing tells the service they printed.
  const printer = await oddPrinter((socket) => socket.pause());
  const p = await addPrinter("PRN-TEST-MUTA", printer.port);
  const sender = countingSender();
  await soleWorker({ timeoutMs: 300, send: sender.send });
  const job = await rest("POST", `/stampanti/${p.id}/stampa`, { key, body: { etichetta: { ...lot, articolo: art } } });
  const done = await jobState(job.body.id);
  expect(done.stato).toBe("fallita");
  expect(done.motivo).toMatch(/^timeout: la stampante 127\.0\.0\.1:\d+ non ha confermato la ricezione entro 0\.3 s \(esito incerto/);
  expect([sender.attempts(printer.port), printer.connections()]).toEqual([1, 1]);
  // Final: a later round of the worker leaves it alone (the job is not queued again).
  const again = await rest("POST", `/stampanti/${p.id}/stampa`, { key, body: { etichetta: { ...lot, articolo: art } } });
  expect((await jobState(again.body.id)).stato).toBe("fallita");
  expect([sender.attempts(printer.port), printer.connections()]).toEqual([2, 2]);
  expect((await rest("GET", `/stampe/${job.body.id}`, { key })).body).toMatchObject({ stato: "fallita", motivo: done.motivo });
  await printer.close();
});

test("a printer that reads the bytes then resets the connection: fallita 'esito incerto', never sent again", async () => {
  const printer = await oddPrinter((socket, received) =>
    socket.once("data", (chunk) => {
      received.push(chunk);
      socket.resetAndDestroy();
    }),
  );
  const p = await addPrinter("PRN-TEST-RESET", printer.port);
  const sender = countingSender();
  await soleWorker({ send: sender.send });
  const job = await rest("POST", `/stampanti/${p.id}/stampa`, { key, body: { etichetta: { ...lot, articolo: art } } });
  const done = await jobState(job.body.id);
  expect(done.stato).toBe("fallita");
  expect(done.motivo).toMatch(/^esito incerto: connessione con 127\.0\.0\.1:\d+ interrotta durante l'invio \(ECONNRESET\)/);
  expect(printer.bytes()).toMatch(/^\^XA/);
  expect([sender.attempts(printer.port), printer.connections()]).toEqual([1, 1]);
  // A person decides: "ristampa" is a new job; the failed one stays as it was.
  const reprinted = await caller(t, operator, "trpc").printers.reprint({ id: job.body.id });
  expect(reprinted.id).not.toBe(job.body.id);
  expect((await jobState(reprinted.id)).stato).toBe("fallita");
  expect([sender.attempts(printer.port), printer.connections()]).toEqual([2, 2]);
  await printer.close();
});

test("a refused connection is tried exactly once more, then fallita", async () => {
  const port = await closedPort();
  const p = await addPrinter("PRN-TEST-RIFIUTA", port);
  const sender = countingSender();
  await soleWorker({ send: sender.send });
  const job = await rest("POST", `/stampanti/${p.id}/stampa`, { key, body: { etichetta: { ...lot, articolo: art } } });
  const done = await jobState(job.body.id);
  expect(done).toMatchObject({ stato: "fallita", motivo: `connessione rifiutata da 127.0.0.1:${port} (2 tentativi)` });
  expect(sender.attempts(port)).toBe(2);
});
