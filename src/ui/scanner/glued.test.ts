import { describe, expect, it } from "vitest";
import { gluedTail, type TypedKey } from "./glued";
import { DEFAULT_SCANNER } from "./wedge";

/** Keys of `text` typed from `start`, each `gaps[i % gaps.length]` ms after the one before. */
function typed(text: string, gaps: number[], start = 1000): { keys: TypedKey[]; end: number } {
  let at = start;
  const keys = [...text].map((ch, i) => {
    if (i > 0) at += gaps[(i - 1) % gaps.length]!;
    return { ch, at };
  });
  return { keys, end: at };
}

const EAN = "8056789000016";
/** A scanner on a busy handheld: most gaps within 40 ms, some well past it (never a person's 150). */
const BUSY = [26, 112, 31, 45, 28, 90, 33, 38, 71, 29, 36, 52];
const known = (code: string) => code === EAN || code === "R7" || code === "6A-03-02";
const never = () => false;

describe("gluedTail", () => {
  it("a known EAN typed by a busy scanner at the end of the delivery note is taken out; the note stays as typed", () => {
    const person = typed("DDT-W1-001", [150]);
    const scanner = typed(EAN, BUSY, person.end + 400);
    const keys = [...person.keys, ...scanner.keys];
    expect(gluedTail(`DDT-W1-001${EAN}`, keys, scanner.end + 30, DEFAULT_SCANNER, known)).toEqual({ head: "DDT-W1-001", tail: EAN });
  });

  it("a code at a scanner's pace is taken out even when the screen does not know it (its check digit holds)", () => {
    const person = typed("3", [150]);
    const scanner = typed(EAN, BUSY, person.end + 600);
    expect(gluedTail(`3${EAN}`, [...person.keys, ...scanner.keys], scanner.end + 20, DEFAULT_SCANNER, never)).toEqual({
      head: "3",
      tail: EAN,
    });
  });

  it("a location typed into a quantity, and a short row label, are taken out when the screen knows them", () => {
    const q = typed("4", [150]);
    const loc = typed("6A-03-02", BUSY, q.end + 500);
    expect(gluedTail("46A-03-02", [...q.keys, ...loc.keys], loc.end + 30, DEFAULT_SCANNER, known)).toEqual({ head: "4", tail: "6A-03-02" });
    const label = typed("R7", [60], q.end + 500);
    expect(gluedTail("4R7", [...q.keys, ...label.keys], label.end + 30, DEFAULT_SCANNER, known)).toEqual({ head: "4", tail: "R7" });
  });

  it("what a person typed is left alone, even digits that read as an EAN", () => {
    const person = typed(`DDT-${EAN}`, [150, 120, 180]);
    expect(gluedTail(`DDT-${EAN}`, person.keys, person.end + 160, DEFAULT_SCANNER, never)).toBeNull();
    const qty = typed("12", [130]);
    expect(gluedTail("12", qty.keys, qty.end + 140, DEFAULT_SCANNER, never)).toBeNull();
  });

  it("a character or two of a quantity is never a known code (unless a short label)", () => {
    const qty = typed("10", [150]);
    expect(gluedTail("10", qty.keys, qty.end + 150, DEFAULT_SCANNER, (c) => c === "0" || c === "10")).toBeNull();
  });

  it("text that was not typed just now (already in the field, or edited) is not looked at", () => {
    const scanner = typed(EAN, BUSY);
    // The field's end is not what was typed: the caret was moved, or the text was replaced.
    expect(gluedTail(`${EAN}-X`, scanner.keys, scanner.end + 20, DEFAULT_SCANNER, known)).toBeNull();
    expect(gluedTail(EAN, [], 5000, DEFAULT_SCANNER, known)).toBeNull();
  });

  it("a scanner's keys closed by a late Enter (a person's) are not a scan by pace", () => {
    const scanner = typed(EAN, BUSY);
    expect(gluedTail(EAN, scanner.keys, scanner.end + 400, DEFAULT_SCANNER, never)).toBeNull();
  });
});
