import { describe, expect, it } from "vitest";
import { CTRL_GS, DEFAULT_SCANNER, GS, keyName, loadScannerSettings, type WedgeVerdict, WedgeDetector } from "./wedge";

/** Feeds keys `gap` ms apart from `start`; answers the last key's verdict and the time after it. */
function feed(d: WedgeDetector, keys: string[], gap: number, start = 1000): { last: WedgeVerdict; at: number } {
  let at = start;
  let last: WedgeVerdict = { kind: "pass" };
  for (const key of keys) {
    last = d.read({ key, at });
    at += gap;
  }
  return { last, at };
}
const chars = (s: string) => [...s];

describe("WedgeDetector", () => {
  it("a scanner's burst closed by Enter is a scan; the burst starts at its first key", () => {
    const d = new WedgeDetector();
    const { last } = feed(d, [...chars("8056789000122"), "Enter"], 3);
    expect(last).toEqual({ kind: "scan", code: "8056789000122", startedAt: 1000 });
  });

  it("a person's typing, then Enter, is left alone", () => {
    const d = new WedgeDetector();
    expect(feed(d, [...chars("4471"), "Enter"], 120).last).toEqual({ kind: "pass" });
    // Even a quick pair of keys is not a code: too short.
    expect(feed(d, [...chars("12"), "Enter"], 10, 5000).last).toEqual({ kind: "pass" });
  });

  it("a burst after a person's keys in the same field is the burst alone", () => {
    const d = new WedgeDetector();
    const typed = feed(d, chars("4471"), 150);
    const { last } = feed(d, [...chars("R144"), "Enter"], 4, typed.at + 300);
    expect(last).toEqual({ kind: "scan", code: "R144", startedAt: typed.at + 300 });
  });

  it("an Enter that comes late after the characters is a person's", () => {
    const d = new WedgeDetector();
    const { at } = feed(d, chars("R144"), 3);
    expect(d.read({ key: "Enter", at: at + 500 })).toEqual({ kind: "pass" });
  });

  it("Shift (a scanner's capitals) does not break a burst; another named key does", () => {
    const d = new WedgeDetector();
    expect(feed(d, ["Shift", "R", "1", "4", "Enter"], 3).last.kind).toBe("scan");
    expect(feed(d, ["R", "1", "ArrowLeft", "4", "Enter"], 3, 9000).last.kind).toBe("pass");
  });

  it("keys stamped out of order never make a burst", () => {
    const d = new WedgeDetector();
    feed(d, chars("R14"), 3, 2000);
    expect(d.read({ key: "Enter", at: 1000 })).toEqual({ kind: "pass" });
  });

  it("a device set to send a prefix: what follows it is a scan at any pace, and kept out of the fields", () => {
    const d = new WedgeDetector({ ...DEFAULT_SCANNER, prefix: "§" });
    expect(d.read({ key: "§", at: 0 })).toEqual({ kind: "swallow" });
    expect(feed(d, chars("R9"), 200, 100).last).toEqual({ kind: "swallow" });
    expect(d.read({ key: "Enter", at: 900 })).toEqual({ kind: "scan", code: "R9", startedAt: 0 });
  });

  it("a device that ends with Tab", () => {
    const d = new WedgeDetector({ ...DEFAULT_SCANNER, suffix: "Tab" });
    expect(feed(d, [...chars("R144"), "Tab"], 3).last.kind).toBe("scan");
  });

  it("an order row's label of one or two digits is a scan; another code that short is not", () => {
    const d = new WedgeDetector();
    expect(feed(d, [...chars("R1"), "Enter"], 3).last).toEqual({ kind: "scan", code: "R1", startedAt: 1000 });
    expect(feed(d, [...chars("r42"), "Enter"], 3, 3000).last.kind).toBe("scan");
    expect(feed(d, [...chars("R1"), "Enter"], 120, 6000).last).toEqual({ kind: "pass" });
    expect(feed(d, [...chars("A1"), "Enter"], 3, 9000).last).toEqual({ kind: "pass" });
  });

  it("FNC1 sent as Ctrl+] or as a GS key is GS in the code, and kept out of the field", () => {
    for (const separator of [CTRL_GS, GS]) {
      const d = new WedgeDetector();
      const head = feed(d, chars("010800123456789710LOT1"), 3);
      expect(d.read({ key: separator, at: head.at })).toEqual({ kind: "swallow" });
      const { last } = feed(d, [...chars("17271231"), "Enter"], 3, head.at + 3);
      expect(last).toEqual({ kind: "scan", code: `010800123456789710LOT1${GS}17271231`, startedAt: 1000 });
    }
  });

  it("FNC1 as the key or character the device is set to send", () => {
    const d = new WedgeDetector({ ...DEFAULT_SCANNER, separator: "F8" });
    const head = feed(d, chars("10L9"), 3);
    expect(d.read({ key: "F8", at: head.at })).toEqual({ kind: "swallow" });
    expect(feed(d, [...chars("21SN"), "Enter"], 3, head.at + 3).last).toMatchObject({ kind: "scan", code: `10L9${GS}21SN` });
    // A person pressing the separator outside a burst: theirs, and it breaks nothing.
    expect(d.read({ key: "F8", at: 90_000 })).toEqual({ kind: "pass" });
  });

  it("Ctrl+] is named as the separator whatever the layout reports", () => {
    expect(keyName({ key: "]", code: "BracketRight", ctrlKey: true })).toBe(CTRL_GS);
    expect(keyName({ key: GS, ctrlKey: true })).toBe(CTRL_GS);
    expect(keyName({ key: "+", code: "BracketRight", ctrlKey: true })).toBe(CTRL_GS);
    expect(keyName({ key: "]", code: "BracketRight", ctrlKey: false })).toBe("]");
  });

  it("settings saved before the separator existed still load", () => {
    const store = new Map([["banchina.lettore", JSON.stringify({ maxGapMs: 30, minLength: 3, prefix: "", suffix: "Enter" })]]);
    const g = globalThis as { localStorage?: unknown };
    const before = g.localStorage;
    g.localStorage = { getItem: (k: string) => store.get(k) ?? null };
    try {
      expect(loadScannerSettings()).toEqual({ maxGapMs: 30, prefix: "", separator: "", suffix: "Enter" });
    } finally {
      g.localStorage = before;
    }
  });
});
