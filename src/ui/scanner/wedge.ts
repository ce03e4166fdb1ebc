/**
 * A keyboard-wedge scanner types a code as keystrokes, then a suffix key (Enter, or Tab where the device is
 * set so). It is told apart from a person by speed: a scanner's keystrokes come 1–15 ms apart (USB HID at a
 * 1–8 ms poll, a press and a release per character; Bluetooth HID up to about 25 ms), a person's 80–200 ms
 * apart and rarely under 50 ms even for a practised pair of keys. A burst is therefore at least
 * `minLength` characters, each at most `maxGapMs` after the one before, closed by the suffix at most
 * `maxGapMs` after the last character. A device that cannot be told apart by speed (a slow Bluetooth
 * link) is set to send a prefix character: what follows the prefix up to the suffix is a scan whatever its pace.
 *
 * The detector only watches keystrokes; what to do with the field the characters landed in is the
 * caller's (useScanner): the characters of a burst are typed wherever the focus was, so the caller
 * records each field's value before a burst starts and puts it back when the burst turns out to be a scan.
 */
export interface ScannerSettings {
  /** Longest pause between two keystrokes of one scan, in ms. */
  maxGapMs: number;
  /** Fewest characters of a scan (`R18` is three). */
  minLength: number;
  /** A character the device sends before each code ("" for none). */
  prefix: string;
  /** The key that ends a code. */
  suffix: "Enter" | "Tab";
}

export const DEFAULT_SCANNER: ScannerSettings = { maxGapMs: 40, minLength: 3, prefix: "", suffix: "Enter" };

export interface KeyStroke {
  key: string;
  /** Milliseconds, from the event's timeStamp. */
  at: number;
}

/** What a keystroke means to the scan logic. */
export type WedgeVerdict =
  /** A person's key, or the start of something not yet decided: let it be. */
  | { kind: "pass" }
  /** A character of a scan (after a prefix): keep it out of any field. */
  | { kind: "swallow" }
  /** The suffix closing a scan: the code, and when the burst started (to restore the field). */
  | { kind: "scan"; code: string; startedAt: number };

export class WedgeDetector {
  private chars: string[] = [];
  private startedAt = 0;
  private lastAt = Number.NEGATIVE_INFINITY;
  private prefixed = false;

  constructor(private settings: ScannerSettings = DEFAULT_SCANNER) {}

  configure(settings: ScannerSettings): void {
    this.settings = settings;
    this.reset();
  }

  reset(): void {
    this.chars = [];
    this.prefixed = false;
    this.lastAt = Number.NEGATIVE_INFINITY;
  }

  /** Reads one keystroke (printable characters are one-character keys, as KeyboardEvent.key gives them). */
  read({ key, at }: KeyStroke): WedgeVerdict {
    const { maxGapMs, minLength, prefix, suffix } = this.settings;
    const gap = at - this.lastAt;
    if (prefix && key === prefix) {
      this.reset();
      this.prefixed = true;
      this.startedAt = at;
      this.lastAt = at;
      return { kind: "swallow" };
    }
    if (key === suffix) {
      const code = this.chars.join("").trim();
      const burst = this.prefixed || (gap >= 0 && gap <= maxGapMs && code.length >= minLength);
      const startedAt = this.startedAt;
      this.reset();
      return burst && code ? { kind: "scan", code, startedAt } : { kind: "pass" };
    }
    if (key.length !== 1) {
      // Shift comes with every capital letter a scanner types; any other key is a person's.
      if (key !== "Shift") this.reset();
      return { kind: "pass" };
    }
    if (this.prefixed) {
      this.chars.push(key);
      this.lastAt = at;
      return { kind: "swallow" };
    }
    if (gap > maxGapMs || gap < 0) {
      // A pause: whatever came before was typed by a person; this key may start a burst.
      this.chars = [key];
      this.startedAt = at;
    } else this.chars.push(key);
    this.lastAt = at;
    return { kind: "pass" };
  }
}

const STORAGE = "banchina.lettore";

/** The device's settings: kept in the browser (they belong to the handheld, not to a user). */
export function loadScannerSettings(): ScannerSettings {
  try {
    const raw = globalThis.localStorage?.getItem(STORAGE);
    if (!raw) return DEFAULT_SCANNER;
    const s = JSON.parse(raw) as Partial<ScannerSettings>;
    return {
      maxGapMs: clamp(Number(s.maxGapMs), 5, 200, DEFAULT_SCANNER.maxGapMs),
      minLength: clamp(Number(s.minLength), 2, 20, DEFAULT_SCANNER.minLength),
      prefix: typeof s.prefix === "string" && s.prefix.length <= 1 ? s.prefix : "",
      suffix: s.suffix === "Tab" ? "Tab" : "Enter",
    };
  } catch {
    return DEFAULT_SCANNER;
  }
}

/** The event that tells the page's detectors to read the settings again. */
export const SCANNER_SETTINGS_EVENT = "banchina-lettore";

export function saveScannerSettings(s: ScannerSettings): void {
  globalThis.localStorage?.setItem(STORAGE, JSON.stringify(s));
  globalThis.dispatchEvent?.(new Event(SCANNER_SETTINGS_EVENT));
}

function clamp(n: number, min: number, max: number, fallback: number): number {
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.round(n))) : fallback;
}
