import { describe, expect, test } from "vitest";
import { recordedPath } from "./write";

describe("recordedPath: the path a write's Idempotency-Key is recorded under", () => {
  test("is the route with each parameter the input's value, as a client writes the path", () => {
    expect(recordedPath("/arrivi/{id}/annulla", { id: 12, motivo: "x" })).toBe("/arrivi/12/annulla");
    expect(recordedPath("/colli/{sscc}/ricevi", { sscc: "003801234567890123" })).toBe("/colli/003801234567890123/ricevi");
  });

  test("is the route itself when it has no parameter", () => {
    expect(recordedPath("/movimenti", { righe: [] })).toBe("/movimenti");
  });

  test("refuses an input without the route's parameter: a route and an input that do not match are a bug", () => {
    expect(() => recordedPath("/stampanti/{id}/stampa", { etichetta: "lotto" })).toThrow(/'id'/);
  });
});
