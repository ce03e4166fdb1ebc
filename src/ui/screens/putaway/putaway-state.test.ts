import { describe, expect, it } from "vitest";
import { phaseOf, putawayStep, type PutawayState } from "./putaway-state";

const run = (...events: Parameters<typeof putawayStep>[1][]) => events.reduce<PutawayState>(putawayStep, null);

describe("putawayStep", () => {
  it("goods, then the destination: ready; done frees the hands", () => {
    const goods = run({ type: "goods", riga: 4, quantita: "6" });
    expect(goods).toEqual({ riga: 4, a: null, quantita: "6", typed: false });
    expect(phaseOf(goods)).toBe("goods");
    const ready = putawayStep(goods, { type: "destination", a: "ST-B1" });
    expect(phaseOf(ready)).toBe("ready");
    expect(ready?.a).toBe("ST-B1");
    expect(putawayStep(ready, { type: "done" })).toBeNull();
    expect(phaseOf(null)).toBe("idle");
  });

  it("a pallet goes whole: no quantity, its SSCC kept", () => {
    const p = run({ type: "pallet", riga: 9, sscc: "003800000000000017" });
    expect(p).toEqual({ riga: 9, a: null, quantita: "", typed: false, sscc: "003800000000000017" });
    expect(phaseOf(p)).toBe("pallet");
    expect(phaseOf(putawayStep(p, { type: "destination", a: "ST-B2" }))).toBe("ready");
  });

  it("a quantity typed is no longer all of it; a refused destination is read again, the quantity kept", () => {
    const s = run({ type: "goods", riga: 4, quantita: "6" }, { type: "quantityTyped", quantita: "2" }, { type: "destination", a: "X" });
    expect(s).toMatchObject({ quantita: "2", typed: true, a: "X" });
    expect(putawayStep(s, { type: "destinationRefused" })).toEqual({ riga: 4, a: null, quantita: "2", typed: true });
  });

  it("another read replaces what was shown", () => {
    const s = run({ type: "pallet", riga: 9, sscc: "S" }, { type: "goods", riga: 4, quantita: "1" });
    expect(s).toEqual({ riga: 4, a: null, quantita: "1", typed: false });
  });

  it("nothing shown: a destination, a quantity or a refusal change nothing", () => {
    expect(run({ type: "destination", a: "X" }, { type: "quantityTyped", quantita: "1" }, { type: "destinationRefused" })).toBeNull();
  });
});
