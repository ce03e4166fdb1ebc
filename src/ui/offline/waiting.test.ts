import { describe, expect, it } from "vitest";
import { reasonsToWait, registerSignOutGuard } from "./sign-out-guards";
import { setWaitingCount, waitingTotal } from "./waiting";

describe("waiting counts", () => {
  it("add up the screens' counts; 0 takes a screen out", () => {
    setWaitingCount("ricevimento", 3);
    setWaitingCount("fornitore", 2);
    expect(waitingTotal()).toBe(5);
    setWaitingCount("ricevimento", 0);
    expect(waitingTotal()).toBe(2);
    setWaitingCount("fornitore", 0);
    expect(waitingTotal()).toBe(0);
  });
});

describe("sign-out guards", () => {
  it("give their reasons, skip those with none, and stop asking once unregistered", async () => {
    expect(await reasonsToWait()).toBeNull();
    const off1 = registerSignOutGuard(async () => "3 arrivi non ancora inviati.");
    const off2 = registerSignOutGuard(async () => null);
    expect(await reasonsToWait()).toBe("3 arrivi non ancora inviati.");
    off1();
    expect(await reasonsToWait()).toBeNull();
    off2();
  });

  it("count a guard that fails as a reason to wait", async () => {
    const off = registerSignOutGuard(() => Promise.reject(new Error("IndexedDB chiuso")));
    expect(await reasonsToWait()).toMatch(/Non è stato possibile verificare/);
    off();
  });
});
