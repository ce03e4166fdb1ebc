import { describe, expect } from "vitest";
import { gtinCheckDigit } from "../../../lib/gtin";
import { inTransaction } from "../../db/transaction";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { verifyLedger } from "../ledger/verify.service";
import { cancelPallet } from "./pallet-cancel.service";
import { receivePallet } from "./pallets.service";

/**
 * Cancelling a pallet whose rows span several orders, against a receipt of another pallet of the same orders
 * (ARCHITECTURE.md, the lock order): never a deadlock. The services run in transactions of one attempt, so a
 * deadlock (40P01), which the service's transactions would retry, surfaces here instead of hiding.
 */

let t: TestDb;
let key: string;
let actor: Actor;

const sscc = (n: number) => {
  const body = `38007123${String(n).padStart(9, "0")}`;
  return `${body}${gtinCheckDigit(body)}`;
};
const P1 = sscc(951);
const P2 = sscc(952);
const opts = { timeZone: "Europe/Rome" };

test.beforeAll(async ({ db, key: k, actor: a }) => {
  t = db;
  key = k;
  actor = a;
  await seedWarehouse(t.prisma, "PAL-RACE-M");
  for (const [codice, ean] of [
    ["PAL-RACE-X", "8007100000057"],
    ["PAL-RACE-Y", "8007100000064"],
    ["PAL-RACE-Z", "8007100000071"],
  ] as const)
    await seedArticle(t.prisma, codice, { ean });
  await seedSupplier(t.prisma, "FORN-PAL-RACE");
  const row = (numero_riga: number, articolo: string) => ({ numero_riga, articolo: `PAL-RACE-${articolo}`, quantita: 1000, prezzo: "1" });
  const order = (numero: string, righe: unknown[]) => ({
    numero,
    fornitore: "FORN-PAL-RACE",
    data: "2026-11-20",
    magazzino: "PAL-RACE-M",
    righe,
  });
  const o = await rest("POST", "/ordini-acquisto", {
    key,
    body: { ordini: [order("RACE-A", [row(1, "X"), row(2, "Y")]), order("RACE-B", [row(1, "Y"), row(2, "Z")])] },
  });
  expect(o.body.creati).toBe(2);
  // P1: A's X and B's Y; P2: A's Y and B's Z. Each pallet's rows are of both orders; cancelling P1 takes X then Y,
  // receiving P2 takes Y and Z, and both end on orders A and B.
  const line = (ordine: string, numero_riga: number) => ({ ordine, numero_riga, quantita: 1 });
  const av = await rest("POST", "/avvisi-spedizione", {
    key,
    body: {
      // Two notices: a pallet's lock holds its notice, so two pallets of one notice would only queue.
      avvisi: [
        {
          numero: "AV-RACE-1",
          fornitore: "FORN-PAL-RACE",
          magazzino: "PAL-RACE-M",
          colli: [{ sscc: P1, righe: [line("RACE-A", 1), line("RACE-B", 1)] }],
        },
        {
          numero: "AV-RACE-2",
          fornitore: "FORN-PAL-RACE",
          magazzino: "PAL-RACE-M",
          colli: [{ sscc: P2, righe: [line("RACE-A", 2), line("RACE-B", 2)] }],
        },
      ],
    },
  });
  expect(av.body.creati).toBe(2);
});

const oneAttempt = <T>(work: Parameters<typeof inTransaction<T>>[1]) => inTransaction(t.prisma, work, { attempts: 1 });
const receive = (s: string, round: number) => oneAttempt((tx) => receivePallet(tx, actor, { sscc: s, ddt: `RACE-${round}` }, opts));
const cancel = (s: string) => oneAttempt((tx) => cancelPallet(tx, actor, s, opts));

describe("a pallet spanning two orders cancelled while another of the same orders is received", () => {
  test("150 rounds, both ways: no deadlock, every call succeeds, rows and ledger agree", async () => {
    expect((await receive(P1, 0)).collo.stato).toBe("ricevuto");
    let [received, waiting] = [P1, P2];
    for (let round = 1; round <= 150; round++) {
      const outcomes = await Promise.allSettled([cancel(received), receive(waiting, round)]);
      const failures = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as { code?: string; message?: string }] : []));
      expect(
        failures.map((f) => `${f.code ?? ""} ${f.message ?? f}`),
        `round ${round}`,
      ).toEqual([]);
      [received, waiting] = [waiting, received];
    }
    // After 150 swaps P1 stands received again (it was at the start), P2 expected: one unit on each of P1's rows.
    const { rows } = await t.pool.query(
      `SELECT o.numero, r.numero_riga, r.arrivata::int AS arrivata FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id
        WHERE o.numero LIKE 'RACE-%' ORDER BY o.numero, r.numero_riga`,
    );
    expect(rows).toEqual([
      { numero: "RACE-A", numero_riga: 1, arrivata: 1 },
      { numero: "RACE-A", numero_riga: 2, arrivata: 0 },
      { numero: "RACE-B", numero_riga: 1, arrivata: 1 },
      { numero: "RACE-B", numero_riga: 2, arrivata: 0 },
    ]);
    const states = await t.pool.query("SELECT sscc, ricevimento_id IS NOT NULL AS ricevuto FROM colli WHERE sscc = ANY($1) ORDER BY sscc", [
      [P1, P2],
    ]);
    expect(states.rows).toEqual([
      { sscc: P1, ricevuto: true },
      { sscc: P2, ricevuto: false },
    ]);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });
});
