"use client";
import { type KeyboardEvent, useEffect, useState } from "react";
import { CTRL_GS, keyName, loadScannerSettings, WedgeDetector } from "./scanner/wedge";

/**
 * A look-up field's text for a handheld with a scanner: applied after a pause in typing, or at once on
 * Enter (the scanner's suffix), and then selected, so the next scan replaces it instead of being appended
 * to it. A scanner's burst (told apart from a hand by wedge.ts, as on the receiving screen) typed over text
 * already in the field is searched alone: the field becomes the code read.
 */
export function useSearchText(wait = 300) {
  const [text, setText] = useState("");
  const [applied, setApplied] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => setApplied(text.trim()), wait);
    return () => clearTimeout(timer);
  }, [text, wait]);
  const [detector] = useState(() => new WedgeDetector(loadScannerSettings()));

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    const key = keyName(e);
    if ((e.ctrlKey || e.metaKey || e.altKey) && key !== CTRL_GS) return;
    const verdict = detector.read({ key, at: e.timeStamp });
    if (verdict.kind === "swallow") return e.preventDefault();
    if (e.key !== "Enter") return;
    e.preventDefault();
    const now = (verdict.kind === "scan" ? verdict.code : e.currentTarget.value).trim();
    setText(now);
    setApplied(now);
    const input = e.currentTarget;
    // After React has written the new value (writing it moves the caret to the end).
    requestAnimationFrame(() => input.select());
  };

  return { text, setText, applied, onKeyDown };
}
