import { describe, expect, it } from "vitest";
import { flushQueue, passSummary, type QueueItem, settledAs } from "./device-queue";

const err = (codice: string) => ({ codice, messaggio: `m ${codice}` }) as never;

describe("a settled key's answer", () => {
  it("counts a refusal named as 'already done' as run; any other answer as it is", () => {
    expect(settledAs({ refused: err("collo_gia_ricevuto") }, ["collo_gia_ricevuto"])).toEqual({ ran: true });
    expect(settledAs({ refused: err("collo_non_trovato") }, ["collo_gia_ricevuto"])).toEqual({ refused: err("collo_non_trovato") });
    expect(settledAs({ refused: err("collo_gia_ricevuto") })).toEqual({ refused: err("collo_gia_ricevuto") });
    expect(settledAs({ abandoned: true }, ["x"])).toEqual({ abandoned: true });
  });
});

describe("a pass over an item of unknown outcome whose settle needs the item (a pallet's path)", () => {
  it("gives settle the item with its key, and removes it when the key had run", async () => {
    const item: QueueItem & { sscc: string } = {
      id: "1",
      chiave: "k1",
      chiave_il: 1000,
      utente: 7,
      il: 1000,
      stato: "incerto",
      sscc: "380072240000000011",
    };
    const asked: string[] = [];
    const removed: string[] = [];
    let sent = 0;
    const report = await flushQueue([item], {
      userId: 7,
      now: () => 2000,
      newKey: () => "k2",
      send: async () => {
        sent++;
        return { ok: true };
      },
      settle: async (chiave, q) => {
        asked.push(`/colli/${q.sscc}/ricevi ${chiave}`);
        return settledAs({ refused: err("collo_gia_ricevuto") }, ["collo_gia_ricevuto"]);
      },
      save: async () => undefined,
      remove: async (q) => {
        removed.push(q.id);
      },
    });
    expect(asked).toEqual(["/colli/380072240000000011/ricevi k1"]);
    expect(removed).toEqual(["1"]);
    expect(sent).toBe(0);
    expect(report.verified.map((q) => q.id)).toEqual(["1"]);
  });
});

describe("what a pass says it did", () => {
  const q = (id: string) => ({ id }) as never;
  const report = (sent: number, verified: number, resent = 0) => ({
    sent: Array.from({ length: sent }, (_, i) => q(`s${i}`)),
    verified: Array.from({ length: verified }, (_, i) => q(`v${i}`)),
    resent: Array.from({ length: resent }, (_, i) => q(`r${i}`)),
    refused: [],
    toDecide: [],
    stopped: null,
  });

  it("calls a row only verified verified, never sent", () => {
    expect(passSummary(report(0, 1), "arrivo", "arrivi")?.title).toBe("Verificato dalla coda: 1 arrivo, già scritto dal servizio");
    expect(passSummary(report(0, 2), "arrivo", "arrivi")?.title).toBe("Verificati dalla coda: 2 arrivi, già scritti dal servizio");
  });

  it("counts sent and sent again together, the verified apart, and says nothing of a pass that did neither", () => {
    expect(passSummary(report(2, 0, 1), "stoccaggio", "stoccaggi")?.title).toBe("Inviati dalla coda: 3 stoccaggi");
    expect(passSummary(report(1, 1), "arrivo", "arrivi")?.title).toBe(
      "Inviati dalla coda: 1 arrivo; verificato 1 arrivo, già scritto dal servizio",
    );
    expect(passSummary(report(0, 0), "arrivo", "arrivi")).toBeNull();
  });
});
