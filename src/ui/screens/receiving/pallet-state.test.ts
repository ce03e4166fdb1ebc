import { describe, expect, it } from "vitest";
import type { PalletOutput } from "../../../server/modules/arrivals/receiving.schemas";
import { declared, noPallet, type PalletEvent, type PalletState, palletPhase, palletStep } from "./pallet-state";

const collo = (stato: "atteso" | "ricevuto" = "atteso") =>
  ({ sscc: "003800000000000017", stato, avviso: { numero: "ASN-1" }, righe: [] }) as unknown as PalletOutput;
const run = (events: PalletEvent[], from: PalletState = noPallet) => events.reduce(palletStep, from);
const mark = { quantita: 2, motivo: "mancante" as const, nota: "" };
const photo = new Blob(["x"]);

describe("palletStep", () => {
  it("no card → open → declared by a mark or the form → sending → closed", () => {
    expect(palletPhase(noPallet)).toBe("none");
    const open = run([{ type: "opened", collo: collo() }]);
    expect(palletPhase(open)).toBe("open");
    const drafting = palletStep(open, { type: "draftOpened", draft: { indice: 0, quantita: 3, motivo: "danneggiato", nota: "" } });
    expect(palletPhase(drafting)).toBe("declared");
    const marked = palletStep(drafting, { type: "draftTaken", mark });
    expect(marked.draft).toBeNull();
    expect(marked.marks).toEqual({ 0: mark });
    expect(declared(marked)).toBe(true);
    expect(palletPhase(palletStep(marked, { type: "sending" }))).toBe("sending");
    expect(palletPhase(run([{ type: "sending" }, { type: "answered" }], marked))).toBe("declared");
    const closed = run([{ type: "said", message: { outcome: "ok", title: "Collo", text: "ricevuto" } }, { type: "closed" }], marked);
    expect(closed).toEqual({ ...noPallet, message: { outcome: "ok", title: "Collo", text: "ricevuto" } });
  });

  it("a pallet received shows as received, never declared", () => {
    const s = run([
      { type: "opened", collo: collo("ricevuto") },
      { type: "marked", indice: 0, mark },
    ]);
    expect(palletPhase(s)).toBe("received");
    expect(declared(s)).toBe(false);
  });

  it("opening a pallet starts fresh: marks, photos, form and the unrecorded flag go; the codes held stay", () => {
    const s = run([
      { type: "opened", collo: collo() },
      { type: "marked", indice: 0, mark },
      { type: "photo", indice: 0, file: photo },
      { type: "held", code: "A" },
      { type: "receivedElsewhere", collo: collo("ricevuto"), unrecorded: true },
      { type: "opened", collo: collo() },
    ]);
    expect(s).toMatchObject({ marks: {}, photos: {}, draft: null, unrecorded: false, held: ["A"] });
  });

  it("a mark removed takes its photo with it; a photo removed alone leaves the mark", () => {
    const s = run([
      { type: "opened", collo: collo() },
      { type: "marked", indice: 0, mark },
      { type: "photo", indice: 0, file: photo },
    ]);
    expect(palletStep(s, { type: "photo", indice: 0, file: null })).toMatchObject({ marks: { 0: mark }, photos: {} });
    expect(palletStep(s, { type: "marked", indice: 0, mark: null })).toMatchObject({ marks: {}, photos: {} });
  });

  it("codes read while the card holds them wait in order; the form changes only while open", () => {
    expect(
      run([
        { type: "held", code: "A" },
        { type: "held", code: "B" },
      ]).held,
    ).toEqual(["A", "B"]);
    const none = run([{ type: "opened", collo: collo() }]);
    expect(palletStep(none, { type: "draftChanged", patch: { nota: "x" } })).toBe(none);
    expect(palletStep(none, { type: "draftTaken", mark })).toBe(none);
    const d = run(
      [
        { type: "draftOpened", draft: { indice: 1, quantita: "", motivo: "mancante", nota: "" } },
        { type: "draftChanged", patch: { quantita: 4 } },
      ],
      none,
    );
    expect(d.draft).toEqual({ indice: 1, quantita: 4, motivo: "mancante", nota: "" });
  });

  it("received elsewhere: the card shows it received, the marks kept and said not recorded", () => {
    const s = run([
      { type: "opened", collo: collo() },
      { type: "marked", indice: 0, mark },
      { type: "receivedElsewhere", collo: collo("ricevuto"), unrecorded: true },
    ]);
    expect(palletPhase(s)).toBe("received");
    expect(s.unrecorded).toBe(true);
    expect(s.marks).toEqual({ 0: mark });
  });
});
