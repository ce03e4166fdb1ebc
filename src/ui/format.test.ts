import { describe, expect, test } from "vitest";
import { registeredNote } from "./format";

// Shown in the browser's zone. 12:32 UTC on 25 November is still 25 November from UTC−12 to UTC+11, so the
// day these tests expect holds wherever they run.
describe("registeredNote", () => {
  test("the time alone when written on the movement's own day", () => {
    expect(registeredNote("2026-11-25", "2026-11-25T12:32:10.000Z")).toMatch(/^ore \d{2}:\d{2}$/);
  });

  test("the whole instant when written on another day", () => {
    expect(registeredNote("2026-11-20", "2026-11-25T12:32:10.000Z")).toMatch(/^registrato 25\/11\/2026 \d{2}:\d{2}$/);
  });

  test("nothing for an instant that cannot be read", () => {
    expect(registeredNote("2026-11-25", "non una data")).toBe("");
  });
});
