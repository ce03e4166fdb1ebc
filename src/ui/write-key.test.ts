import { TRPCClientError } from "@trpc/client";
import { describe, expect, test } from "vitest";
import { describeWriteError } from "./errors";
import { WriteKey } from "./write-key";

/** A failure as the tRPC client hands it to a screen: the service's answer, or none at all. */
const answered = (httpStatus: number, codice: string, message = "messaggio del servizio") =>
  new TRPCClientError(message, { result: { error: { message, code: -32000, data: { httpStatus, codice } } } });
const noAnswer = () => TRPCClientError.from(new TypeError("Failed to fetch"));

const request = { magazzino: 1, ddt: "D1", riga: 7, quantita: 2 };

describe("WriteKey", () => {
  test.each([
    ["no answer", noAnswer()],
    ["database lost (503)", answered(503, "servizio_non_disponibile")],
    ["internal error (500)", answered(500, "errore_interno")],
    ["first attempt still running (409)", answered(409, "idempotenza_in_corso")],
  ])("%s: pressing again with the same data sends the same key", (_, error) => {
    const k = new WriteKey();
    const first = k.for(request);
    k.settle(error);
    expect(k.for({ ...request })).toBe(first);
  });

  test("unknown outcome but different data: a new key (the old one would be refused as reused)", () => {
    const k = new WriteKey();
    const first = k.for(request);
    k.settle(noAnswer());
    expect(k.for({ ...request, quantita: 3 })).not.toBe(first);
  });

  test.each([
    ["done", undefined],
    ["refused (422, stored under the key)", answered(422, "quantita_eccessiva")],
    ["forbidden (403)", answered(403, "permesso_negato")],
  ])("%s: the next request, even identical, gets a new key", (_, error) => {
    const k = new WriteKey();
    const first = k.for(request);
    k.settle(error);
    expect(k.for(request)).not.toBe(first);
  });

  test("reset: the next request, even identical, gets a new key", () => {
    const k = new WriteKey();
    const first = k.for(request);
    expect(k.for(request)).toBe(first);
    k.reset();
    expect(k.for(request)).not.toBe(first);
  });

  test("keys are distinct and fit the contract (printable ASCII, at most 255)", () => {
    const keys = new Set(Array.from({ length: 200 }, (_, i) => new WriteKey().for({ i })));
    expect(keys.size).toBe(200);
    for (const key of keys) expect(key).toMatch(/^[\x20-\x7E]{1,255}$/);
  });
});

describe("describeWriteError", () => {
  test("no answer: Italian, says to press again with the same data", () => {
    const d = describeWriteError(noAnswer());
    expect(d.codice).toBe("rete");
    expect(d.messaggio).toMatch(/^Il servizio non ha risposto\./);
    expect(d.messaggio).toMatch(/premere di nuovo senza modificare i dati/);
    expect(d.messaggio).not.toMatch(/fetch/i);
  });

  test("503: the screen's words, not the API's Idempotency-Key", () => {
    const d = describeWriteError(answered(503, "servizio_non_disponibile", "… con la stessa Idempotency-Key …"));
    expect(d.messaggio).toMatch(/^Il database non ha risposto\./);
    expect(d.messaggio).not.toMatch(/Idempotency/);
  });

  test("500 keeps the service's reference for support", () => {
    const d = describeWriteError(
      answered(500, "errore_interno", "Errore interno del servizio. Se si ripete, comunicare il riferimento r-123."),
    );
    expect(d.messaggio).toContain("r-123");
    expect(d.messaggio).toMatch(/premere di nuovo/);
  });

  test("a refusal is passed on as the service wrote it", () => {
    const d = describeWriteError(answered(422, "quantita_eccessiva", "Quantità oltre il residuo della riga R7: residuo 3."));
    expect(d).toEqual({ codice: "quantita_eccessiva", messaggio: "Quantità oltre il residuo della riga R7: residuo 3.", status: 422 });
  });
});
