import type { Page } from "@playwright/test";

/** The stamp of the last simulated key (s since the epoch): stamps only move forward. */
let clock = 0;

/**
 * Keys as a device sends them, stamped `msPerKey` apart (3 ms: a keyboard-wedge scanner; 150 ms: a hand),
 * then Enter. Real key events through CDP with their timestamp given, so the gaps the page measures
 * (KeyboardEvent.timeStamp, as a real device's events carry the time they were read) are the device's, not
 * how long this shared machine takes to deliver each key: `keyboard.type(code, { delay: 5 })` arrives
 * 20–480 ms per key here under load. A burst starts no earlier than now, so a person's key pressed after it
 * (real time) never looks older than the burst.
 */
export async function typeAsDevice(page: Page, text: string, msPerKey: number, enter = true): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  clock = Math.max(Date.now() / 1000, clock + 0.2);
  try {
    for (const k of [...text, ...(enter ? ["Enter"] : [])]) {
      clock += msPerKey / 1000;
      const key =
        k === "Enter" ? { key: "Enter", code: "Enter", windowsVirtualKeyCode: 13, text: "\r" } : { key: k, text: k, unmodifiedText: k };
      await cdp.send("Input.dispatchKeyEvent", { type: "keyDown", timestamp: clock, ...key });
      await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", timestamp: clock, key: key.key });
    }
  } finally {
    await cdp.detach();
  }
}
