import type { CDPSession, Page } from "@playwright/test";

/** The stamp of the last simulated key (s since the epoch): stamps only move forward. */
let clock = 0;

/**
 * Keys as a device sends them, stamped `msPerKey` apart (3 ms: a keyboard-wedge scanner; 150 ms: a hand),
 * then Enter. Real key events through CDP with their timestamp given, so the gaps the page measures
 * (KeyboardEvent.timeStamp, as a real device's events carry the time they were read) are the device's, not
 * how long this shared machine takes to deliver each key: `keyboard.type(code, { delay: 5 })` arrives
 * with gaps far wider and more uneven than a scanner's here under load. A burst starts no earlier than now,
 * so a person's key pressed after it
 * (real time) never looks older than the burst. `msPerKey` may be a list of gaps, taken in turn (a scanner on a
 * busy handheld whose gaps vary); a GS in `text` is sent as the wedge sends FNC1 (`fnc1`).
 */
export async function typeAsDevice(
  page: Page,
  text: string,
  msPerKey: number | number[],
  enter = true,
  fnc1: Fnc1 = "ctrl]",
): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  clock = Math.max(Date.now() / 1000, clock + 0.2);
  const keys = [...text, ...(enter ? ["Enter"] : [])];
  try {
    for (const [i, k] of keys.entries()) {
      clock += (typeof msPerKey === "number" ? msPerKey : msPerKey[i % msPerKey.length]!) / 1000;
      if (k === GS) {
        await sendSeparator(cdp, fnc1);
        continue;
      }
      const key =
        k === "Enter" ? { key: "Enter", code: "Enter", windowsVirtualKeyCode: 13, text: "\r" } : { key: k, text: k, unmodifiedText: k };
      await cdp.send("Input.dispatchKeyEvent", { type: "keyDown", timestamp: clock, ...key });
      await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", timestamp: clock, key: key.key });
    }
  } finally {
    await cdp.detach();
  }
}

/** FNC1 in a GS1 code, as `text` carries it to typeAsDevice. */
export const GS = "\x1d";

/**
 * How a wedge sends FNC1, which it cannot type as text: `ctrl]` Ctrl+] (GS is Ctrl+] in ASCII; Control
 * pressed, `]` with the Control modifier, both released), `gs` a key event carrying GS and no text, or
 * `{ key }` a named key the device is set to send (F8).
 */
export type Fnc1 = "ctrl]" | "gs" | { key: string };

async function sendSeparator(cdp: CDPSession, fnc1: Fnc1): Promise<void> {
  const at = clock;
  if (typeof fnc1 === "object") {
    await cdp.send("Input.dispatchKeyEvent", { type: "rawKeyDown", timestamp: at, key: fnc1.key, code: fnc1.key });
    await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", timestamp: at, key: fnc1.key, code: fnc1.key });
    return;
  }
  if (fnc1 === "gs") {
    await cdp.send("Input.dispatchKeyEvent", { type: "rawKeyDown", timestamp: at, key: GS });
    await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", timestamp: at, key: GS });
    return;
  }
  const CTRL = 2;
  const control = { key: "Control", code: "ControlLeft", windowsVirtualKeyCode: 17 };
  const bracket = { key: "]", code: "BracketRight", windowsVirtualKeyCode: 221, modifiers: CTRL };
  await cdp.send("Input.dispatchKeyEvent", { type: "rawKeyDown", timestamp: at, modifiers: CTRL, ...control });
  await cdp.send("Input.dispatchKeyEvent", { type: "rawKeyDown", timestamp: at, ...bracket });
  await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", timestamp: at, ...bracket });
  await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", timestamp: at, ...control });
}
