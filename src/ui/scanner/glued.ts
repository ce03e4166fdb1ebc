import { parseScan } from "../../lib/barcode";
import { isShortCode, type ScannerSettings } from "./wedge";

/**
 * A scan glued to what a person typed. On a busy handheld a scanner's keys can arrive further apart than the
 * detector's threshold (wedge.ts): the burst is then not told apart, and the code is typed into the field that
 * had the focus (the delivery note, a quantity) — or only its last keys are, the rest typed. Before such a
 * field's text is used (its Enter), its end is looked at again: a code the screen knows (an expected row's EAN
 * or `R` label, an announced SSCC, a location), or a code whose keys came at a scanner's pace even if not
 * within the threshold, is taken out of it and read as a scan. The field keeps what came before.
 */

/** A character typed into a field, and when (the event's timeStamp). */
export interface TypedKey {
  ch: string;
  at: number;
}

export interface Glued {
  /** What the field keeps. */
  head: string;
  /** The code taken out of it. */
  tail: string;
}

/** Of the keys typed into the field, the last ones that are still its text's end, in order. */
function typedEnd(value: string, typed: TypedKey[]): TypedKey[] {
  let k = 0;
  while (k < typed.length && k < value.length && typed[typed.length - 1 - k]!.ch === value[value.length - 1 - k]) k++;
  return typed.slice(typed.length - k);
}

/** A code of the kinds the service prints and a scanner reads: an EAN or GS1 code with its check digit, an `R` label. */
const readsAsCode = (code: string) => ["ean", "gs1", "etichetta"].includes(parseScan(code).kind);

/**
 * The code at the end of a field's text when Enter came (`enterAt`), or null when the text is all a person's.
 * `typed` holds the keys typed into this field (oldest first); `knows` says whether the screen knows a code.
 * Only what was typed just now is looked at: text already in the field, or put there otherwise, is left alone.
 */
export function gluedTail(
  value: string,
  typed: TypedKey[],
  enterAt: number,
  settings: Pick<ScannerSettings, "maxGapMs">,
  knows: (code: string) => boolean,
): Glued | null {
  const run = typedEnd(value, typed);
  if (run.length === 0) return null;
  const split = (len: number): Glued => ({ head: value.slice(0, value.length - len), tail: value.slice(value.length - len) });
  // A code the screen knows, however it came: the longest one (and not a character or two of a quantity,
  // unless it is a short label).
  for (let len = run.length; len >= 1; len--) {
    const tail = value.slice(value.length - len);
    if ((len >= 3 || isShortCode(tail)) && knows(tail)) return split(len);
  }
  // A scanner's pace on a busy device: no gap far past the threshold, most of them within twice it.
  const slack = settings.maxGapMs * 3;
  if (enterAt - run[run.length - 1]!.at > slack) return null;
  let start = run.length - 1;
  while (start > 0 && run[start]!.at - run[start - 1]!.at <= slack) start--;
  for (let from = start; from < run.length; from++) {
    const keys = run.slice(from);
    const gaps = [...keys.slice(1).map((k, i) => k.at - keys[i]!.at), enterAt - keys[keys.length - 1]!.at].sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)]!;
    const code = keys.map((k) => k.ch).join("");
    if ((keys.length >= 3 || isShortCode(code)) && median <= settings.maxGapMs * 2 && readsAsCode(code)) return split(keys.length);
  }
  return null;
}
