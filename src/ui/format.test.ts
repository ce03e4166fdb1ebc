import { afterEach, describe, expect, test } from "vitest";
import { instant, instantToSecond, money, registeredNote, setDisplayTimeZone } from "./format";

// Shown in the service's zone whatever the process's (the server's render and the browser's must agree).
afterEach(() => setDisplayTimeZone("Europe/Rome"));

describe("instants in the service's zone", () => {
  test("gg/mm/aaaa hh:mm in Rome, and in another zone when the service has one", () => {
    expect(instant("2026-11-25T12:32:10.000Z")).toBe("25/11/2026 13:32");
    expect(instant("2026-07-01T22:30:00.000+00:00")).toBe("02/07/2026 00:30");
    setDisplayTimeZone("America/New_York");
    expect(instant("2026-11-25T12:32:10.000Z")).toBe("25/11/2026 07:32");
  });

  test("zones changed back and forth in one process: each text in the zone set when it is written", () => {
    const at = "2026-11-25T23:30:00.000Z";
    expect(instant(at)).toBe("26/11/2026 00:30");
    setDisplayTimeZone("America/New_York");
    expect(instant(at)).toBe("25/11/2026 18:30");
    expect(registeredNote("2026-11-25", at)).toBe("ore 18:30");
    setDisplayTimeZone("Asia/Tokyo");
    expect(instant(at)).toBe("26/11/2026 08:30");
    setDisplayTimeZone("Europe/Rome");
    expect(instant(at)).toBe("26/11/2026 00:30");
    expect(registeredNote("2026-11-25", at)).toBe("registrato 26/11/2026 00:30");
  });

  test("a zone Intl does not know fails every formatting, as toLocaleString's did", () => {
    setDisplayTimeZone("Marte/Olimpo");
    expect(() => instant("2026-11-25T12:32:10.000Z")).toThrow(RangeError);
    expect(() => instant("2026-11-25T12:32:10.000Z")).toThrow(RangeError);
  });

  test("to the second in the same zone as every other instant (a webhook's attempts beside its deliveries)", () => {
    const at = "2026-11-25T12:32:10.000Z";
    expect(instantToSecond(at)).toBe("25/11/2026 13:32:10");
    expect(instantToSecond(at).startsWith(instant(at))).toBe(true);
    setDisplayTimeZone("America/New_York");
    expect(instantToSecond(at)).toBe("25/11/2026 07:32:10");
    expect(instantToSecond(null)).toBe("—");
  });

  test("nothing to show for a missing or unreadable instant", () => {
    expect(instant(null)).toBe("—");
    expect(instant("non una data")).toBe("—");
  });
});

describe("registeredNote", () => {
  test("the time alone when written on the movement's own day", () => {
    expect(registeredNote("2026-11-25", "2026-11-25T12:32:10.000Z")).toBe("ore 13:32");
  });

  test("the whole instant when written on another day, as the service's zone counts days", () => {
    expect(registeredNote("2026-11-20", "2026-11-25T12:32:10.000Z")).toBe("registrato 25/11/2026 13:32");
    // 23:30 UTC is already the next day in Rome.
    expect(registeredNote("2026-11-25", "2026-11-25T23:30:00.000Z")).toBe("registrato 26/11/2026 00:30");
  });

  test("nothing for an instant that cannot be read", () => {
    expect(registeredNote("2026-11-25", "non una data")).toBe("");
  });
});

describe("money", () => {
  // Intl separates the amount from the sign by a no-break space.
  test("euros as an Italian reader writes them, two to four decimals", () => {
    expect(money("1234.5")).toBe("1234,50\u00a0€");
    expect(money("12345678.9")).toBe("12.345.678,90\u00a0€");
    expect(money("0.12345")).toBe("0,1235\u00a0€");
    expect(money("-3")).toBe("-3,00\u00a0€");
  });

  test("the text as it came when it is no number, a dash when there is none", () => {
    expect(money("n/d")).toBe("n/d");
    expect(money(null)).toBe("—");
    expect(money(undefined)).toBe("—");
  });
});
