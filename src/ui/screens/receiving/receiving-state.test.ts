import { describe, expect, it } from "vitest";
import { choiceOf, type DockEvent, type DockState, dockStep, initialDock, rowOf } from "./receiving-state";
import type { Current, Problem } from "./types";

const row = (counted = 1, confirmed = false) =>
  ({
    order: { numero: "OA-1" },
    row: { riga: 7, articolo: { codice: "VITE" } },
    lettura: null,
    code: "8001",
    confirmed,
    counted,
  }) as unknown as Current;
const problem: Problem = { field: "quantita", title: "Quantità da confermare", message: "Scrivere la quantità." };
const run = (events: DockEvent[], from: DockState = initialDock) => events.reduce(dockStep, from);

describe("dockStep", () => {
  it("a look-up shows its code meanwhile; the last code stays after it", () => {
    const s = run([{ type: "lookingUp", code: "8001" }]);
    expect(s.reading).toBe("8001");
    const after = dockStep(s, { type: "lookedUp" });
    expect(after.reading).toBeNull();
    expect(after.lastCode).toBe("8001");
  });

  it("idle → row shown → counted → gone", () => {
    const shown = run([{ type: "shown", row: row() }]);
    expect(shown.screen.name).toBe("row");
    const counted = dockStep(shown, { type: "rowChanged", row: row(2, true) });
    expect(rowOf(counted)?.counted).toBe(2);
    expect(dockStep(counted, { type: "rowGone" }).screen).toEqual({ name: "idle" });
  });

  it("a row that came back (a reload) is shown from idle", () => {
    expect(rowOf(run([{ type: "rowChanged", row: row() }]))?.code).toBe("8001");
  });

  it("the screen stops on a choice: every code waits, a code read meanwhile joins them", () => {
    const s = run([
      { type: "shown", row: row() },
      { type: "held", codes: ["A"] },
      { type: "stopped", row: row(), problem, codes: ["A", "B"] },
    ]);
    expect(s.screen.name).toBe("choice");
    expect(s.held).toEqual(["A", "B"]);
    const joined = dockStep(s, { type: "joined", code: "C" });
    expect(joined.held).toEqual(["A", "B", "C"]);
    expect(choiceOf(joined)?.codes).toEqual(["A", "B", "C"]);
    expect(choiceOf(joined)?.problem).toBe(problem);
  });

  it("completing the row closes the choice on it, the codes still waiting; released, none waits", () => {
    const s = run([{ type: "shown", row: row() }, { type: "stopped", row: row(), problem, codes: ["A"] }, { type: "completed" }]);
    expect(s.screen.name).toBe("row");
    expect(choiceOf(s)).toBeNull();
    expect(s.held).toEqual(["A"]);
    expect(dockStep(s, { type: "released" }).held).toEqual([]);
  });

  it("discarding the row closes the choice and the row", () => {
    const s = run([{ type: "shown", row: row() }, { type: "stopped", row: row(), problem, codes: ["A"] }, { type: "discarded" }]);
    expect(s.screen).toEqual({ name: "idle" });
    expect(s.held).toEqual(["A"]);
  });

  it("a quantity typed while the choice is open changes the row shown, not the choice's", () => {
    const s = run([
      { type: "shown", row: row() },
      { type: "stopped", row: row(), problem, codes: [] },
      { type: "rowChanged", row: row(1, true) },
    ]);
    expect(s.screen.name).toBe("choice");
    expect(rowOf(s)?.confirmed).toBe(true);
    expect(choiceOf(s)?.row.confirmed).toBe(false);
  });

  it("outside a choice, joining or completing changes nothing", () => {
    const s = run([{ type: "shown", row: row() }]);
    expect(dockStep(s, { type: "joined", code: "X" })).toBe(s);
    expect(dockStep(s, { type: "completed" })).toBe(s);
    expect(dockStep(initialDock, { type: "released" })).toBe(initialDock);
  });

  it("the delivery note written: the refusal that asked for it gives way, any other outcome stays", () => {
    const asked = run([{ type: "said", feedback: { outcome: "ko", title: "Indicare il DDT" } }]);
    expect(dockStep(asked, { type: "ddtWritten", ddt: " " })).toBe(asked);
    expect(dockStep(asked, { type: "ddtWritten", ddt: " DDT-9 " }).feedback).toEqual({
      outcome: "info",
      title: "DDT DDT-9",
      message: "Invio per registrare la riga mostrata.",
    });
    const other = run([{ type: "said", feedback: { outcome: "ok", title: "Registrato" } }]);
    expect(dockStep(other, { type: "ddtWritten", ddt: "DDT-9" })).toBe(other);
  });
});
