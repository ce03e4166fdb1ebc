import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { toErrorResponse } from "../../trpc/errors";
import { caller, rest, seedArticle, seedWarehouse, stockOf } from "../../testing/fixtures";
import { heldAt, seedLocations, stockSnapshot, switchLocations } from "../../testing/locations";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { verifyLedger } from "./verify.service";

/** Stock by location in the ledger (docs/api.md section 11): the row codes, moves, the switch, verify. */

let t: TestDb;
let key: string;
let actor: Actor;
let P: number;
let L: number;
let cliente: number;

test.beforeAll(async ({ db, key: k, actor: a }) => {
  t = db;
  key = k;
  actor = a;
  P = (await seedArticle(t.prisma, "PALLET-VITI")).id;
  L = (await seedArticle(t.prisma, "YOGURT", { lotti: true })).id;
  cliente = (
    await t.prisma.cliente.create({ data: { codice: "C1", ragione_sociale: "Rossi S.r.l.", data: new Date("2026-01-01T00:00:00Z") } })
  ).id;
});

const post = (body: unknown) => rest("POST", "/movimenti", { key, body });

/** A warehouse that manages locations: receiving R, storage A and B, inactive X; stock loaded first, then switched on. */
async function locationWarehouse(codice: string, stock: { P?: number; L1?: number } = {}) {
  const w = (await seedWarehouse(t.prisma, codice)).id;
  const righe = [
    ...(stock.P ? [{ codice: "PALLET-VITI", quantita: stock.P }] : []),
    ...(stock.L1 ? [{ codice: "YOGURT", quantita: stock.L1, lotto: "L1", scadenza: "2027-01-31" }] : []),
  ];
  if (righe.length > 0) expect((await post({ natura: "carico", magazzino: w, righe })).body.scritte).toBe(righe.length);
  const u = await seedLocations(t, w, [
    { codice: `${codice}-R`, tipo: "ricevimento" },
    { codice: `${codice}-A` },
    { codice: `${codice}-B` },
    { codice: `${codice}-X`, attiva: false },
  ]);
  const switched = await switchLocations(t, actor, w, true, u[`${codice}-R`]);
  return { w, R: u[`${codice}-R`]!, A: u[`${codice}-A`]!, B: u[`${codice}-B`]!, X: u[`${codice}-X`]!, operazione: switched.operazione };
}

const refusal = (r: { body: any }, i = 0) => r.body.righe[i].errore?.codice;

describe("switching locations on and off", () => {
  test("on: the warehouse's stock moves into its receiving location in one operation; balances unchanged", async () => {
    const { w, R, operazione } = await locationWarehouse("SW1", { P: 10, L1: 5 });
    expect(operazione).not.toBeNull();
    expect(await heldAt(t, P, R)).toBe(10);
    expect(await heldAt(t, L, R, "L1")).toBe(5);
    expect(await stockOf(t, P, w)).toEqual({ ledger: 10, balance: 10 });
    const list = await rest("GET", `/movimenti?operazione=${operazione}`, { key });
    expect(list.body.movimenti).toHaveLength(4);
    expect(list.body.movimenti.map((m: any) => [m.origine, m.natura, m.causale, m.quantita, m.ubicazione, m.lotto])).toEqual([
      ["correzione", "trasferimento", "Attivazione ubicazioni", "-10", null, null],
      ["correzione", "trasferimento", "Attivazione ubicazioni", "10", "SW1-R", null],
      ["correzione", "trasferimento", "Attivazione ubicazioni", "-5", null, "L1"],
      ["correzione", "trasferimento", "Attivazione ubicazioni", "5", "SW1-R", "L1"],
    ]);
    const { rows } = await t.pool.query("SELECT gestione_ubicazioni FROM magazzini WHERE id = $1", [w]);
    expect(rows[0].gestione_ubicazioni).toBe(true);
    expect(await verifyLedger(t.prisma)).toMatchObject({ ok: true, differenze: [] });
    // Switching on again changes nothing.
    expect(await switchLocations(t, actor, w, true)).toEqual({ operazione: null });
  });

  test("on without a receiving location: ubicazione_ricevimento_mancante, nothing written", async () => {
    const w = (await seedWarehouse(t.prisma, "SW2")).id;
    await post({ natura: "carico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 3 }] });
    const before = await stockSnapshot(t);
    await expect(switchLocations(t, actor, w, true)).rejects.toMatchObject({ codice: "ubicazione_ricevimento_mancante" });
    expect(await stockSnapshot(t)).toBe(before);
  });

  test("on while a balance is below zero: giacenza_negativa, nothing written", async () => {
    const w = (await seedWarehouse(t.prisma, "SW3")).id;
    await post({ natura: "scarico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 2 }] });
    const { R } = await seedLocations(t, w, [{ codice: "R", tipo: "ricevimento" }]);
    const before = await stockSnapshot(t);
    const refused = switchLocations(t, actor, w, true, R);
    await expect(refused).rejects.toMatchObject({ codice: "giacenza_negativa" });
    await expect(refused).rejects.toThrow(/PALLET-VITI: -2/);
    expect(await stockSnapshot(t)).toBe(before);
    const { rows } = await t.pool.query("SELECT gestione_ubicazioni FROM magazzini WHERE id = $1", [w]);
    expect(rows[0].gestione_ubicazioni).toBe(false);
  });

  test("off while stock lies in two locations: ubicazioni_in_uso; gathered in one, off moves it out of locations", async () => {
    const { w, R, A } = await locationWarehouse("SW4", { P: 6 });
    expect(
      (
        await post({
          natura: "trasferimento",
          magazzino_origine: w,
          magazzino: w,
          righe: [{ codice: "PALLET-VITI", quantita: 2, ubicazione_origine: "SW4-R", ubicazione: "SW4-A" }],
        })
      ).body.scritte,
    ).toBe(1);
    const before = await stockSnapshot(t);
    const refused = switchLocations(t, actor, w, false);
    await expect(refused).rejects.toMatchObject({ codice: "ubicazioni_in_uso" });
    await expect(refused).rejects.toThrow(/SW4-R, SW4-A|SW4-A, SW4-R/);
    expect(await stockSnapshot(t)).toBe(before);
    await post({
      natura: "trasferimento",
      magazzino_origine: w,
      magazzino: w,
      righe: [{ codice: "PALLET-VITI", quantita: 2, ubicazione_origine: "SW4-A", ubicazione: "SW4-R" }],
    });
    const off = await switchLocations(t, actor, w, false);
    expect(off.operazione).not.toBeNull();
    expect(await heldAt(t, P, R)).toBe(0);
    expect(await heldAt(t, P, A)).toBe(0);
    expect(await stockOf(t, P, w)).toEqual({ ledger: 6, balance: 6 });
    // Back to a warehouse without locations: movements behave as they do where locations were never managed.
    expect((await post({ natura: "scarico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 1 }] })).body.scritte).toBe(1);
    expect(
      refusal(await post({ natura: "scarico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione: "SW4-R" }] })),
    ).toBe("ubicazione_non_prevista");
    expect(await verifyLedger(t.prisma)).toMatchObject({ ok: true, differenze: [] });
  });
});

describe("POST /movimenti in a warehouse with locations", () => {
  test("load, unload and a move between locations carry their location; lists and events show its code", async () => {
    const { w, A, B } = await locationWarehouse("MV1");
    const load = await post({ natura: "carico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 8, ubicazione: "MV1-A" }] });
    expect(load.body.scritte).toBe(1);
    const { rows: seq } = await t.pool.query("SELECT coalesce(max(id), 0)::int AS n FROM eventi");
    const move = await post({
      natura: "trasferimento",
      magazzino_origine: w,
      magazzino: w,
      righe: [{ codice: "PALLET-VITI", quantita: 3, ubicazione_origine: "MV1-A", ubicazione: "MV1-B" }],
    });
    expect(move.body.righe[0]).toMatchObject({ esito: "scritta" });
    const unload = await post({ natura: "scarico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione: "MV1-B" }] });
    expect(unload.body.scritte).toBe(1);
    expect([await heldAt(t, P, A), await heldAt(t, P, B)]).toEqual([5, 2]);
    expect(await stockOf(t, P, w)).toEqual({ ledger: 7, balance: 7 });
    const list = await rest("GET", `/movimenti?operazione=${move.body.operazione}`, { key });
    expect(list.body.movimenti.map((m: any) => [m.magazzino, m.quantita, m.ubicazione])).toEqual([
      [w, "-3", "MV1-A"],
      [w, "3", "MV1-B"],
    ]);
    const events = await rest("GET", `/eventi?dopo=${seq[0].n}&limite=100`, { key });
    const event = events.body.eventi.find((e: any) => e.dati?.operazione === move.body.operazione);
    expect(event.dati.movimenti.map((m: any) => m.ubicazione)).toEqual(["MV1-A", "MV1-B"]);
  });

  test("every location refusal code, per row, with nothing of the refused rows written", async () => {
    const { w } = await locationWarehouse("RF1", { P: 4, L1: 5 });
    const other = await locationWarehouse("RF2");
    const plain = (await seedWarehouse(t.prisma, "RF3")).id;
    const cases: [string, unknown][] = [
      ["ubicazione_obbligatoria", { natura: "carico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 1 }] }],
      ["ubicazione_obbligatoria", { natura: "scarico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 1 }] }],
      [
        "ubicazione_obbligatoria",
        {
          natura: "trasferimento",
          magazzino_origine: w,
          magazzino: other.w,
          righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione: "RF2-A" }],
        },
      ],
      [
        "ubicazione_non_trovata",
        { natura: "carico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione: "NESSUNA" }] },
      ],
      // Another warehouse's location is unknown here.
      ["ubicazione_non_trovata", { natura: "carico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione: "RF2-A" }] }],
      // An inactive location takes no goods in.
      ["ubicazione_non_trovata", { natura: "carico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione: "RF1-X" }] }],
      [
        "ubicazione_non_trovata",
        {
          natura: "trasferimento",
          magazzino_origine: w,
          magazzino: w,
          righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione_origine: "RF1-R", ubicazione: "RF1-X" }],
        },
      ],
      [
        "ubicazione_non_prevista",
        { natura: "carico", magazzino: plain, righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione: "RF1-A" }] },
      ],
      [
        "ubicazione_non_prevista",
        {
          natura: "trasferimento",
          magazzino_origine: plain,
          magazzino: w,
          righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione_origine: "RF1-A", ubicazione: "RF1-A" }],
        },
      ],
      [
        "quantita_insufficiente_ubicazione",
        { natura: "scarico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 5, ubicazione: "RF1-R" }] },
      ],
      [
        "quantita_insufficiente_ubicazione",
        { natura: "scarico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione: "RF1-A" }] },
      ],
      [
        "quantita_insufficiente_ubicazione",
        {
          natura: "trasferimento",
          magazzino_origine: w,
          magazzino: other.w,
          righe: [{ codice: "YOGURT", lotto: "L1", quantita: 1, ubicazione_origine: "RF1-A", ubicazione: "RF2-A" }],
        },
      ],
    ];
    for (const [codice, body] of cases) {
      const before = await stockSnapshot(t);
      const r = await post(body);
      expect([codice, r.status, r.body.scritte, refusal(r)]).toEqual([codice, 200, 0, codice]);
      expect(await stockSnapshot(t)).toBe(before);
    }
  });

  test("a lot that holds enough, in a location that does not: refused, and the lot's residual given back", async () => {
    const { w, R, A } = await locationWarehouse("LT1", { L1: 5 });
    await post({
      natura: "trasferimento",
      magazzino_origine: w,
      magazzino: w,
      righe: [{ codice: "YOGURT", lotto: "L1", quantita: 2, ubicazione_origine: "LT1-R", ubicazione: "LT1-A" }],
    });
    const before = await stockSnapshot(t);
    const r = await post({
      natura: "scarico",
      magazzino: w,
      righe: [
        { codice: "YOGURT", lotto: "L1", quantita: 3, ubicazione: "LT1-A" },
        { codice: "YOGURT", lotto: "L1", quantita: 1, ubicazione: "LT1-R" },
      ],
    });
    expect(r.body.righe.map((o: any) => o.esito)).toEqual(["rifiutata", "scritta"]);
    expect(r.body.righe[0].errore).toEqual({
      codice: "quantita_insufficiente_ubicazione",
      messaggio: "L'ubicazione 'LT1-A' ha 2 di YOGURT (lotto 'L1'): richiesti 3.",
    });
    expect(before).not.toBe(await stockSnapshot(t));
    const { rows } = await t.pool.query("SELECT residua::float AS r FROM lotti WHERE articolo_id = $1 AND magazzino_id = $2", [L, w]);
    expect(rows[0].r).toBe(4);
    expect([await heldAt(t, L, R, "L1"), await heldAt(t, L, A, "L1")]).toEqual([2, 2]);
    expect(await verifyLedger(t.prisma)).toMatchObject({ ok: true, differenze: [] });
  });

  test("caricata_il: set when goods come into an empty location row, kept while it holds some", async () => {
    const { w, B } = await locationWarehouse("CA1");
    const loadB = (quantita: number) =>
      post({ natura: "carico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita, ubicazione: "CA1-B" }] });
    const loadedAt = async () =>
      (await t.pool.query("SELECT to_char(caricata_il, 'YYYY-MM-DD') AS d FROM giacenze_ubicazioni WHERE ubicazione_id = $1", [B])).rows[0]
        .d;
    await loadB(2);
    await t.pool.query("UPDATE giacenze_ubicazioni SET caricata_il = '2020-01-01' WHERE ubicazione_id = $1", [B]);
    await loadB(1);
    expect(await loadedAt()).toBe("2020-01-01");
    await post({ natura: "scarico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 3, ubicazione: "CA1-B" }] });
    expect(await loadedAt()).toBe("2020-01-01");
    await loadB(1);
    expect(await loadedAt()).not.toBe("2020-01-01");
  });

  test("an inactive location gives its goods out", async () => {
    const { w, X } = await locationWarehouse("IN1");
    await t.pool.query("UPDATE ubicazioni SET attiva = true WHERE id = $1", [X]);
    await post({ natura: "carico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 2, ubicazione: "IN1-X" }] });
    await t.pool.query("UPDATE ubicazioni SET attiva = false WHERE id = $1", [X]);
    const r = await post({ natura: "scarico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 2, ubicazione: "IN1-X" }] });
    expect(r.body.scritte).toBe(1);
    expect(await heldAt(t, P, X)).toBe(0);
  });

  test("a transfer inside one warehouse: only between two different locations of a warehouse with locations", async () => {
    const plain = (await seedWarehouse(t.prisma, "TR1")).id;
    const { w } = await locationWarehouse("TR2", { P: 1 });
    const cases = [
      {
        magazzino_origine: plain,
        magazzino: plain,
        righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione_origine: "A", ubicazione: "B" }],
      },
      {
        magazzino_origine: w,
        magazzino: w,
        righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione_origine: "TR2-R", ubicazione: "TR2-R" }],
      },
      { magazzino_origine: w, magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione: "TR2-A" }] },
    ];
    for (const c of cases) {
      const r = await post({ natura: "trasferimento", ...c });
      expect([r.status, r.body.codice, r.body.campo]).toEqual([422, "richiesta_non_valida", "magazzino_origine"]);
    }
    const onLoad = await post({
      natura: "carico",
      magazzino: w,
      righe: [{ codice: "PALLET-VITI", quantita: 1, ubicazione: "TR2-A", ubicazione_origine: "TR2-R" }],
    });
    // A field the call's `natura` does not allow is the row's fault (docs/api.md section 2).
    expect(onLoad.status).toBe(200);
    expect(onLoad.body.righe[0]).toMatchObject({ esito: "rifiutata", errore: { codice: "campo_non_valido", campo: "ubicazione_origine" } });
  });

  test("origine stoccaggio is an origin of the movements list", async () => {
    const r = await rest("GET", "/movimenti?origine=stoccaggio", { key });
    expect(r.status).toBe(200);
  });
});

describe("sales documents in a warehouse with locations", () => {
  // Sales documents are the screens' (tRPC), issued by a responsabile; the answer as REST would give it.
  const sell = async (magazzino: number, righe: { codice: string; quantita: number; prezzo: string; aliquota_iva: string }[]) => {
    const user = await t.prisma.utente.upsert({
      where: { username: "banco" },
      create: { username: "banco", password_hash: "-", ruolo: "responsabile" },
      update: {},
    });
    const ui = caller(t, { kind: "utente", id: user.id, username: user.username, ruolo: "responsabile" }, "trpc");
    return ui.sales.create({ tipo: "ddt", cliente, magazzino, righe }).then(
      (body) => ({ status: 200, body: body as any }),
      (e: unknown) => toErrorResponse(e, { requestId: "test", isQuery: false, log: false }),
    );
  };
  const row = (extra: object) => ({ codice: "PALLET-VITI", quantita: 1, prezzo: "2", aliquota_iva: "22", ...extra });

  test("a row names the location its goods leave; refused locations refuse the document with nothing written", async () => {
    const { w, R } = await locationWarehouse("VE1", { P: 3 });
    const plain = (await seedWarehouse(t.prisma, "VE2")).id;
    for (const [codice, magazzino, extra] of [
      ["ubicazione_obbligatoria", w, {}],
      ["ubicazione_non_trovata", w, { ubicazione: "NESSUNA" }],
      ["quantita_insufficiente_ubicazione", w, { ubicazione: "VE1-A" }],
      ["ubicazione_non_prevista", plain, { ubicazione: "VE1-R" }],
    ] as const) {
      const before = await stockSnapshot(t);
      const r = await sell(magazzino, [row(extra)]);
      expect([r.status, r.body.codice]).toEqual([422, codice]);
      expect(await stockSnapshot(t)).toBe(before);
    }
    const ok = await sell(w, [row({ ubicazione: "VE1-R", quantita: 2 })]);
    expect(ok.status).toBe(200);
    expect(await heldAt(t, P, R)).toBe(1);
    const list = await rest("GET", `/movimenti?magazzino=${w}&origine=vendita`, { key });
    expect(list.body.movimenti.map((m: any) => [m.quantita, m.ubicazione])).toEqual([["-2", "VE1-R"]]);
  });
});

describe("verify", () => {
  test("location stock that drifts from the ledger, or a balance outside the locations, is found and named", async () => {
    const { w, A } = await locationWarehouse("VF1");
    await post({ natura: "carico", magazzino: w, righe: [{ codice: "PALLET-VITI", quantita: 4, ubicazione: "VF1-A" }] });
    expect((await verifyLedger(t.prisma)).ok).toBe(true);
    await t.pool.query("UPDATE giacenze_ubicazioni SET quantita = quantita + 1 WHERE ubicazione_id = $1", [A]);
    const r = await verifyLedger(t.prisma);
    expect(r.differenze).toEqual([
      { tipo: "giacenza_ubicazione", chiave: `articolo ${P} ubicazione ${A} lotto -`, atteso: "4.000", trovato: "5.000" },
      { tipo: "giacenza_senza_ubicazione", chiave: `articolo ${P} magazzino ${w}`, atteso: "4.000", trovato: "5.000" },
    ]);
    expect(r.controllati.giacenze_ubicazioni).toBeGreaterThan(0);
    await t.pool.query("UPDATE giacenze_ubicazioni SET quantita = quantita - 1 WHERE ubicazione_id = $1", [A]);
  });
});
