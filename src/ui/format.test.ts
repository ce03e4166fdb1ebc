import { afterEach, describe, expect, test } from "vitest";
import { instant, registeredNote, setDisplayTimeZone } from "./format";

// Shown in the service's zone whatever the process's (the server's render and the browser's must agree).
afterEach(() => setDisplayTimeZone("Europe/Rome"));

describe("instants in the service's zone", () => {
  test("gg/mm/aaaa hh:mm in Rome, and in another zone when the service has one", () => {
    expect(instant("2026-11-25T12:32:10.000Z")).toBe("25/11/2026 13:32");
    expect(instant("2026-07-01T22:30:00.000+00:00")).toBe("02/07/2026 00:30");
    setDisplayTimeZone("America/New_York");
    expect(instant("2026-11-25T12:32:10.000Z")).toBe("25/11/2026 07:32");
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
