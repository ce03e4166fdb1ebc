/**
 * A keyboard-wedge scanner types a code as keystrokes, then a suffix key (Enter, or Tab where the device is
 * set so). It is told apart from a person by speed: a scanner's keystrokes come 1–15 ms apart (USB HID at a
 * 1–8 ms poll, a press and a release per character; Bluetooth HID up to about 25 ms), a person's 80–200 ms
 * apart and rarely under 50 ms even for a practised pair of keys. A burst is therefore characters each at most
 * `maxGapMs` after the one before, closed by the suffix at most `maxGapMs` after the last character; at
 * least three of them (a person's quick pair of keys and Enter is not a code), or fewer when they are a code
 * the service prints that short: an order row's label `R1`…`R99` (see isShortCode). A device that cannot be told apart by speed (a slow Bluetooth
 * link) is set to send a prefix character: what follows the prefix up to the suffix is a scan whatever its pace.
 *
 * GS1 codes need FNC1 between a variable-length field and the next one (`10LOT1` FNC1 `17271231`). A wedge
 * cannot type the GS character (0x1D) as text: it sends it as Ctrl+] (GS is Ctrl+] in ASCII), as a key event
 * carrying GS, or as a key or character the device is set to (`separator`, as in Odoo's barcode nomenclature).
 * Whichever it is, it becomes GS in the code, so the lot ends where the scanner said it does.
 *
 * The detector only watches keystrokes; what to do with the field the characters landed in is the
 * caller's (useScanner): the characters of a burst are typed wherever the focus was, so the caller
 * records each field's value before a burst starts and puts it back when the burst turns out to be a scan.
 */
export interface ScannerSettings {
  /** Longest pause between two keystrokes of one scan, in ms. */
  maxGapMs: number;
  /** A character the device sends before each code ("" for none). */
  prefix: string;
  /**
   * What the device sends for FNC1 besides Ctrl+] and a GS key, which are always read as it: a character
   * (`#`, `~`) or a key's name (`F8`); "" for nothing else.
   */
  separator: string;
  /** The key that ends a code. */
  suffix: "Enter" | "Tab";
}

export const DEFAULT_SCANNER: ScannerSettings = { maxGapMs: 40, prefix: "", separator: "", suffix: "Enter" };

/** The group separator (FNC1) as it is put in a code. */
export const GS = "\x1d";
/** The name keyName gives to Ctrl+], how most wedges type the group separator. */
export const CTRL_GS = "Ctrl+]";
/** Fewest characters of a burst that is not a code printed short. */
const MIN_LENGTH = 3;

/**
 * Codes the service prints under three characters (labels module): an order row's `R<riga>` label on a
 * young installation. A burst this short is read as a scan only when it is one of them.
 */
export const isShortCode = (code: string) => /^R\d{1,2}$/i.test(code);

/** A key event as the detector names it: its `key`, or `Ctrl+]` for Ctrl+] (and a GS typed with Ctrl). */
export function keyName(e: { key: string; code?: string; ctrlKey: boolean }): string {
  if (e.ctrlKey && (e.key === "]" || e.key === GS || e.code === "BracketRight")) return CTRL_GS;
  return e.key;
}
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
    const { maxGapMs, prefix, separator, suffix } = this.settings;
    const gap = at - this.lastAt;
    if (key === CTRL_GS || key === GS || (separator !== "" && key === separator)) return this.readSeparator(at, gap);
    if (prefix && key === prefix) {
      this.reset();
      this.prefixed = true;
      this.startedAt = at;
      this.lastAt = at;
      return { kind: "swallow" };
    }
    if (key === suffix) {
      const code = this.chars.join("").trim();
      const paced = gap >= 0 && gap <= maxGapMs && (code.length >= MIN_LENGTH || isShortCode(code));
      const burst = this.prefixed || paced;
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

  /**
   * FNC1 inside a burst (or after a prefix) is GS in the code, and never reaches a field; anywhere else it is
   * a person's key, and breaks nothing.
   */
  private readSeparator(at: number, gap: number): WedgeVerdict {
    const inBurst = this.prefixed || (this.chars.length > 0 && gap >= 0 && gap <= this.settings.maxGapMs);
    if (!inBurst) return { kind: "pass" };
    this.chars.push(GS);
    this.lastAt = at;
    return { kind: "swallow" };
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
      prefix: typeof s.prefix === "string" && s.prefix.length <= 1 ? s.prefix : "",
      separator: typeof s.separator === "string" && s.separator.length <= 12 ? s.separator : "",
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
