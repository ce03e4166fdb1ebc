import { describe, expect, it } from "vitest";
import type { NoticeOutput } from "../../../server/modules/notices/notices.schemas";
import type { ExpectedCopy } from "./local-lookup";
import { lookUpPallet, palletsFromNotices, type QueuedPallet } from "./pallet-copy";

const row = (indice: number, riga: number, quantita: string) => ({
  indice,
  riga,
  ordine: { id: 1, numero: "PO-DOCK-1" },
  numero_riga: indice + 1,
  articolo: { id: 9, codice: "ART-DOCK" },
  quantita,
  lotto: null,
  scadenza: null,
});

const notice = (colli: NoticeOutput["colli"]): NoticeOutput =>
  ({
    id: 5,
    numero: "ASN-DOCK-1",
    fornitore: { id: 1, codice: "FORN-DOCK-1", nome: "Dock" },
    magazzino: 1,
    data_prevista: null,
    stato: "in_ricevimento",
    versione: 1,
    colli,
  }) as NoticeOutput;

const queued = (sscc: string, stato: QueuedPallet["stato"]): QueuedPallet => ({
  id: "1",
  chiave: "k",
  chiave_il: 0,
  utente: 1,
  il: 0,
  stato,
  richiesta: { sscc, ddt: "DDT" },
  avviso: "ASN-DOCK-1",
  righe: 1,
});

describe("the handheld's copy of announced pallets", () => {
  const avvisi = [
    notice([
      { sscc: "380072240000000011", stato: "atteso", righe: [row(0, 101, "12"), row(1, 102, "4")] },
      { sscc: "380072240000000028", stato: "ricevuto", righe: [row(0, 103, "1")] },
    ]),
  ];
  const expected = { righe: [{ riga: 101, residua: "10" }] } as unknown as ExpectedCopy;

  it("keeps only pallets not yet received, with the expected copy's remainder or the pallet's quantity", () => {
    const copy = palletsFromNotices(avvisi, expected, 7);
    expect(copy.il).toBe(7);
    expect(copy.colli.map((c) => c.sscc)).toEqual(["380072240000000011"]);
    expect(copy.colli[0]?.righe.map((r) => [r.riga, r.residua])).toEqual([
      [101, "10"],
      [102, "4"],
    ]);
    expect(copy.colli[0]?.righe[0]).not.toHaveProperty("numero_riga");
  });

  it("answers a queued pallet as received (never queued twice), a refused one as still expected, an unknown SSCC as null", () => {
    const copy = palletsFromNotices(avvisi, null, 0);
    expect(lookUpPallet("380072240000000011", copy, [])?.stato).toBe("atteso");
    expect(lookUpPallet("380072240000000011", copy, [queued("380072240000000011", "in_coda")])?.stato).toBe("ricevuto");
    expect(lookUpPallet("380072240000000011", copy, [queued("380072240000000011", "rifiutato")])?.stato).toBe("atteso");
    expect(lookUpPallet("380072240000000028", copy, [])).toBeNull();
    expect(lookUpPallet("380072240000000011", null, [])).toBeNull();
  });
});
