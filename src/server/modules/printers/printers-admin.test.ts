import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { caller, countRows, rest, seedArticle } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { inTransaction } from "../../db/transaction";
import type { Actor } from "../auth/actor";
import type { LabelSpec } from "../labels/labels.schemas";
import { preparePrint, queuePrint } from "./printers.service";

/**
 * An administrator changes a printer (name, address, size) and deactivates or reactivates it. The address
 * change is in the administrative log (the service connects there); a deactivated printer stays listed with
 * `attiva: false`, refuses print jobs and reprints (`stampante_disattivata`), and its queued jobs end `fallita`.
 * No worker runs in this file: a queued job stays `in_coda` until something here changes it.
 */

let t: TestDb;
let key: string;
let art: number;
const admin: Actor = { kind: "utente", id: 1, username: "amministratore-test", ruolo: "amministratore" };
const manager: Actor = { kind: "utente", id: 3, username: "responsabile-test", ruolo: "responsabile" };
const operator: Actor = { kind: "utente", id: 2, username: "operatore-test", ruolo: "operatore" };
const writeKey: Actor = { kind: "chiave", id: 1, nome: "k", permessi: ["lettura", "scrittura"] };
const lot = (lotto: string) => ({ etichetta: { tipo: "lotto", articolo: art, lotto, scadenza: "2027-03-01", quantita: 1 } });

test.beforeAll(async ({ db, key: k }) => {
  t = db;
  key = k;
  art = (await seedArticle(t.prisma, "PRN-TEST-ART", { ean: "8001234567897", lotti: true })).id;
});

const asAdmin = () => caller(t, admin, "trpc").printers;
const add = (nome: string, indirizzo = "127.0.0.1:9100") => asAdmin().add({ nome, indirizzo });
const lastLog = async () =>
  (await t.pool.query("SELECT azione, oggetto, dettagli, autore_nome FROM registro_amministrativo ORDER BY id DESC LIMIT 1")).rows[0];
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: { cause?: { codice?: string } }) => e.cause?.codice ?? String(e),
  );

test("an administrator changes name, address and size; the log records the old and new address", async () => {
  const p = await add("PRN-TEST-MOD");
  const changed = await asAdmin().update({ id: p.id, nome: "PRN-TEST-MOD-2", indirizzo: "10.0.0.7", dimensione: "100x150" });
  expect(changed).toMatchObject({ id: p.id, nome: "PRN-TEST-MOD-2", indirizzo: "10.0.0.7:9100", dimensione: "100x150", attiva: true });
  expect(await lastLog()).toEqual({
    azione: "stampante.modificata",
    oggetto: "PRN-TEST-MOD-2",
    dettagli: "nome 'PRN-TEST-MOD' → 'PRN-TEST-MOD-2', indirizzo 127.0.0.1:9100 → 10.0.0.7:9100, dimensione 100x50 → 100x150 mm",
    autore_nome: "amministratore-test",
  });
  // Only the address: only it is logged. The same values again: nothing changes, nothing is logged.
  await asAdmin().update({ id: p.id, indirizzo: "[::1]:9200" });
  expect((await lastLog()).dettagli).toBe("indirizzo 10.0.0.7:9100 → [::1]:9200");
  const logged = await countRows(t, "registro_amministrativo");
  expect(await asAdmin().update({ id: p.id, nome: "PRN-TEST-MOD-2", indirizzo: "[::1]:9200" })).toMatchObject({ indirizzo: "[::1]:9200" });
  expect(await countRows(t, "registro_amministrativo")).toBe(logged);
  const listed = (await rest("GET", "/stampanti", { key })).body.stampanti.find((s: { id: number }) => s.id === p.id);
  expect(listed).toMatchObject({ nome: "PRN-TEST-MOD-2", indirizzo: "[::1]:9200", dimensione: "100x150", attiva: true });
});

test("update refusals: not an administrator, unknown printer, a name taken, a bad address or size; nothing written", async () => {
  const p = await add("PRN-TEST-RIF");
  await add("PRN-TEST-ALTRA");
  const logged = await countRows(t, "registro_amministrativo");
  for (const who of [operator, manager, writeKey])
    expect(await codeOf(caller(t, who, "trpc").printers.update({ id: p.id, indirizzo: "10.9.9.9:9100" }))).toBe("permesso_negato");
  for (const who of [operator, manager, writeKey])
    expect(await codeOf(caller(t, who, "trpc").printers.setActive({ id: p.id, attiva: false }))).toBe("permesso_negato");
  expect(await codeOf(asAdmin().update({ id: 999_999, indirizzo: "10.9.9.9" }))).toBe("non_trovato");
  expect(await codeOf(asAdmin().setActive({ id: 999_999, attiva: false }))).toBe("non_trovato");
  expect(await codeOf(asAdmin().update({ id: p.id, nome: "PRN-TEST-ALTRA" }))).toBe("stampante_esistente");
  await expect(asAdmin().update({ id: p.id, indirizzo: "host:99999" })).rejects.toThrow(/host:porta/);
  await expect(asAdmin().update({ id: p.id, dimensione: "a4" as never })).rejects.toThrow(/100x50/);
  expect(await countRows(t, "registro_amministrativo")).toBe(logged);
  const still = (await rest("GET", "/stampanti", { key })).body.stampanti.find((s: { id: number }) => s.id === p.id);
  expect(still).toMatchObject({ nome: "PRN-TEST-RIF", indirizzo: "127.0.0.1:9100", dimensione: "100x50", attiva: true });
});

test("a deactivated printer: listed attiva false, jobs and reprints refused (stampante_disattivata), queued jobs fallita; reactivated it prints", async () => {
  const p = await add("PRN-TEST-OFF");
  const queued = await rest("POST", `/stampanti/${p.id}/stampa`, { key, body: lot("L-CODA") });
  expect([queued.status, queued.body.stato]).toEqual([202, "in_coda"]);

  const off = await asAdmin().setActive({ id: p.id, attiva: false });
  expect(off.attiva).toBe(false);
  expect(await lastLog()).toMatchObject({
    azione: "stampante.disattivata",
    oggetto: "PRN-TEST-OFF",
    dettagli: "indirizzo 127.0.0.1:9100, 1 stampa in coda annullata",
  });
  expect((await rest("GET", `/stampe/${queued.body.id}`, { key })).body).toMatchObject({
    stato: "fallita",
    motivo: "stampante disattivata prima dell'invio; ristampare su un'altra stampante",
  });
  const listed = (await rest("GET", "/stampanti", { key })).body.stampanti.find((s: { id: number }) => s.id === p.id);
  expect(listed).toMatchObject({ attiva: false });

  const jobs = await countRows(t, "stampe");
  const refused = await rest("POST", `/stampanti/${p.id}/stampa`, { key, body: lot("L-NO") });
  expect(refused.status).toBe(422);
  expect(refused.body).toMatchObject({
    codice: "stampante_disattivata",
    messaggio: expect.stringContaining("'PRN-TEST-OFF' è disattivata"),
  });
  expect(await codeOf(caller(t, operator, "trpc").printers.reprint({ id: queued.body.id }))).toBe("stampante_disattivata");
  expect(await countRows(t, "stampe")).toBe(jobs);
  // Deactivating again changes and logs nothing.
  const logged = await countRows(t, "registro_amministrativo");
  expect((await asAdmin().setActive({ id: p.id, attiva: false })).attiva).toBe(false);
  expect(await countRows(t, "registro_amministrativo")).toBe(logged);

  expect((await asAdmin().setActive({ id: p.id, attiva: true })).attiva).toBe(true);
  expect(await lastLog()).toMatchObject({ azione: "stampante.riattivata", dettagli: "indirizzo 127.0.0.1:9100" });
  const again = await rest("POST", `/stampanti/${p.id}/stampa`, { key, body: lot("L-SI") });
  expect([again.status, again.body.stato]).toEqual([202, "in_coda"]);
});

test("prints racing a deactivation: each is refused or queued and then failed by it; none is left to send", async () => {
  const p = await add("PRN-TEST-GARA");
  const prints = Array.from({ length: 16 }, (_, i) => rest("POST", `/stampanti/${p.id}/stampa`, { key, body: lot(`L-GARA-${i}`) }));
  const [deactivated, ...answers] = await Promise.all([asAdmin().setActive({ id: p.id, attiva: false }), ...prints]);
  expect(deactivated.attiva).toBe(false);
  for (const a of answers) expect([202, 422]).toContain(a.status);
  const accepted = answers.filter((a) => a.status === 202).map((a) => a.body.id as number);
  for (const a of answers.filter((x) => x.status === 422)) expect(a.body.codice).toBe("stampante_disattivata");
  const { rows } = await t.pool.query("SELECT id, stato FROM stampe WHERE stampante_id = $1 ORDER BY id", [p.id]);
  expect(rows.map((r) => r.id)).toEqual(accepted.sort((a, b) => a - b));
  expect(rows.filter((r) => r.stato !== "fallita")).toEqual([]);
});

test("a job prepared before the deactivation and queued after it is refused (the insert re-checks the printer)", async () => {
  const p = await add("PRN-TEST-FINESTRA");
  const spec: LabelSpec = { tipo: "lotto", articolo: art, lotto: "L-FINESTRA", scadenza: "2027-03-01", quantita: "1" };
  // The window between reading the printer and queueing the job, held open deterministically.
  const prepared = await preparePrint(t.prisma, p.id, spec, 1);
  await asAdmin().setActive({ id: p.id, attiva: false });
  const queued = inTransaction(t.prisma, (tx) => queuePrint(tx, admin, prepared, spec, 1));
  await expect(queued).rejects.toMatchObject({ codice: "stampante_disattivata" });
  expect((await t.pool.query("SELECT count(*)::int AS n FROM stampe WHERE stampante_id = $1", [p.id])).rows[0].n).toBe(0);
});
