"use client";
import { type KeyboardEvent, useEffect, useRef, useState } from "react";

/**
 * Keys closer together than this come from a keyboard-wedge scanner, not a hand: the threshold Odoo's
 * `barcodes` module documents for scanners. A person's keys are 100 ms and more apart.
 */
const SCANNER_GAP_MS = 50;
/** The shortest burst taken for a scan: codes the dock reads (EAN-8, `R<riga>`, GS1) are longer. */
const MIN_SCAN_LENGTH = 4;

/**
 * A look-up field's text for a handheld with a scanner: applied after a pause in typing, or at once on
 * Enter (the scanner's suffix), and then selected, so the next scan replaces it instead of being appended
 * to it. A scanner's burst (keys faster than a hand, ending in Enter) typed over text already in the field
 * is searched alone: the field becomes the code read.
 */
export function useSearchText(wait = 300) {
  const [text, setText] = useState("");
  const [applied, setApplied] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => setApplied(text.trim()), wait);
    return () => clearTimeout(timer);
  }, [text, wait]);
  const burst = useRef({ keys: "", at: Number.NEGATIVE_INFINITY });

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    const b = burst.current;
    const gap = e.timeStamp - b.at;
    const fast = gap >= 0 && gap < SCANNER_GAP_MS;
    if (e.key === "Enter") {
      e.preventDefault();
      const now = (fast && b.keys.length >= MIN_SCAN_LENGTH ? b.keys : e.currentTarget.value).trim();
      b.keys = "";
      b.at = Number.NEGATIVE_INFINITY;
      setText(now);
      setApplied(now);
      const input = e.currentTarget;
      // After React has written the new value (writing it moves the caret to the end).
      requestAnimationFrame(() => input.select());
      return;
    }
    // Shift (a scanner's upper case) and other named keys neither add to a burst nor break it.
    if (e.key.length !== 1 || e.ctrlKey || e.metaKey || e.altKey) return;
    b.keys = fast ? b.keys + e.key : e.key;
    b.at = e.timeStamp;
  };

  return { text, setText, applied, onKeyDown };
}
