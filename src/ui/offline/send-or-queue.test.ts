import { describe, expect, it } from "vitest";
import type { SendResult } from "./device-queue";
import { sendOrQueue } from "./send-or-queue";

function deps(online: boolean, answer: SendResult & { residua?: string }) {
  const sent: string[] = [];
  const queued: { stato: string; chiave: string }[] = [];
  return {
    sent,
    queued,
    deps: {
      online,
      newKey: () => "k1",
      send: async (chiave: string) => {
        sent.push(chiave);
        return answer;
      },
      queue: async (stato: "in_coda" | "incerto", chiave: string) => {
        queued.push({ stato, chiave });
      },
    },
  };
}

describe("sendOrQueue", () => {
  it("sends now when online: the answer passes through, nothing is queued", async () => {
    const t = deps(true, { ok: true, residua: "5" });
    const out = await sendOrQueue(t.deps);
    expect(out).toEqual({ kind: "sent", answer: { ok: true, residua: "5" } });
    expect(t.sent).toEqual(["k1"]);
    expect(t.queued).toEqual([]);
  });

  it("offline: queued unsent under the key fixed now, never sent", async () => {
    const t = deps(false, { ok: true });
    expect(await sendOrQueue(t.deps)).toEqual({ kind: "queued", chiave: "k1" });
    expect(t.sent).toEqual([]);
    expect(t.queued).toEqual([{ stato: "in_coda", chiave: "k1" }]);
  });

  it("a refusal is the screen's: nothing queued", async () => {
    const refused = { codice: "riga_chiusa", messaggio: "Riga chiusa." };
    const t = deps(true, { refused });
    expect(await sendOrQueue(t.deps)).toEqual({ kind: "refused", error: refused });
    expect(t.queued).toEqual([]);
  });

  it("the browser went offline before the request left: queued, not uncertain", async () => {
    const t = deps(true, { unknown: { codice: "offline", messaggio: "Offline" } });
    expect(await sendOrQueue(t.deps)).toEqual({ kind: "queued", chiave: "k1" });
    expect(t.queued).toEqual([{ stato: "in_coda", chiave: "k1" }]);
  });

  it.each(["timeout", "rete", "servizio_non_disponibile"])("sent without an answer (%s): uncertain, under the same key", async (codice) => {
    const error = { codice, messaggio: "…" };
    const t = deps(true, { unknown: error });
    expect(await sendOrQueue(t.deps)).toEqual({ kind: "uncertain", chiave: "k1", error });
    expect(t.sent).toEqual(["k1"]);
    expect(t.queued).toEqual([{ stato: "incerto", chiave: "k1" }]);
  });
});
