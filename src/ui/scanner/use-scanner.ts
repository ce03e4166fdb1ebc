"use client";
import { useEffect, useRef } from "react";
import { flushTypedFields, keepFromReact } from "../typed-input";
import { gluedTail, type TypedKey } from "./glued";
import { CTRL_GS, keyName, loadScannerSettings, SCANNER_SETTINGS_EVENT, WedgeDetector } from "./wedge";

/**
 * Where a scan was read: the `data-scan` attribute of the field that had the focus when the burst started
 * (a field that asks for a code, such as the lot, names itself), or null anywhere else (a button, a dialog,
 * the delivery note, a quantity, the page).
 */
export type ScanTarget = string | null;

/** The `data-scan` of the field made for codes (the scan field): its whole text is the code. */
export const CODE_FIELD = "codice";

/** A field's text before a burst typed into it, to be put back. */
interface Snapshot {
  at: number;
  /** The character typed. */
  ch: string;
  el: HTMLInputElement | HTMLTextAreaElement | null;
  value: string;
  target: ScanTarget;
}

const isTextField = (el: Element | null): el is HTMLInputElement | HTMLTextAreaElement =>
  el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement && !["checkbox", "radio", "button", "submit"].includes(el.type));

/** Whether the focus is in something a person types into. */
export function isEditable(el: Element | null): boolean {
  if (!el) return false;
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (el as HTMLElement).isContentEditable;
}

/** Sets a field's text so that React's onChange hears it (a controlled field keeps the value it is given otherwise). */
export function setFieldText(el: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, "value")?.set?.call(el, value);
  el.dispatchEvent(new Event("input", { bubbles: true }));
}

/** A field where a person types words or figures (the delivery note, a quantity): not the scan field, not the lot. */
const isPlainField = (el: Element | null): el is HTMLInputElement | HTMLTextAreaElement => isTextField(el) && !el.hasAttribute("data-scan");

/**
 * One scan path for a screen: every scanner burst, wherever the focus is, is taken out of the field it was
 * typed into (the field gets back its text from before the burst) and its suffix key never reaches the
 * page (no dialog button is pressed, no form submitted); the code goes to `onScan` with the field it was
 * aimed at. A person's typing is left alone. Listens in the capture phase of the window, before any field.
 *
 * A burst the detector missed (a busy handheld spreads a scanner's keys) is caught at its suffix in a field
 * where people type (glued.ts): a code at the end of the field's text that the screen knows (`knows`), or
 * that came at a scanner's pace, is taken out and read as a scan, and the suffix does not reach the field.
 */
export function useScanner(onScan: (code: string, target: ScanTarget) => void, knows: (code: string) => boolean = () => false): void {
  const latest = useRef(onScan);
  latest.current = onScan;
  const known = useRef(knows);
  known.current = knows;
  useEffect(() => {
    let settings = loadScannerSettings();
    const detector = new WedgeDetector(settings);
    const snapshots: Snapshot[] = [];
    const typedInto = (el: Element): TypedKey[] => snapshots.filter((s) => s.el === el).map(({ ch, at }) => ({ ch, at }));
    const onKey = (e: KeyboardEvent) => {
      const key = keyName(e);
      // A shortcut is a person's, but Ctrl+] is how a wedge types FNC1.
      if (((e.ctrlKey || e.metaKey || e.altKey) && key !== CTRL_GS) || e.isComposing) return;
      const active = document.activeElement;
      if (e.key.length === 1) {
        const el = isTextField(active) ? active : null;
        snapshots.push({ at: e.timeStamp, ch: e.key, el, value: el?.value ?? "", target: active?.getAttribute("data-scan") ?? null });
        if (snapshots.length > 256) snapshots.splice(0, 128);
      }
      const verdict = detector.read({ key, at: e.timeStamp });
      if (verdict.kind === "pass" && key === settings.suffix && isPlainField(active)) {
        const glued = gluedTail(active.value, typedInto(active), e.timeStamp, settings, known.current);
        if (!glued) return;
        e.preventDefault();
        e.stopImmediatePropagation();
        snapshots.length = 0;
        setFieldText(active, glued.head);
        flushTypedFields();
        latest.current(glued.tail, null);
        return;
      }
      if (verdict.kind === "pass") return;
      e.preventDefault();
      e.stopImmediatePropagation();
      if (verdict.kind === "swallow") return;
      let start = snapshots.find((s) => s.at === verdict.startedAt);
      let code = verdict.code;
      // Only the last keys of a code may have come within the threshold: the rest is at the field's end.
      if (start?.el && start.el === active && isPlainField(active)) {
        const glued = gluedTail(active.value, typedInto(active), e.timeStamp, settings, known.current);
        if (glued && glued.tail.length > code.length && glued.tail.endsWith(code)) {
          code = glued.tail;
          start = { ...start, value: glued.head };
        }
      }
      snapshots.length = 0;
      const target = start?.target ?? (active?.getAttribute("data-scan") || null);
      // The field for codes holds nothing but the code: all of its text is the scan, whatever pace its first
      // keys came at; it is emptied. Any other field gets back its text from before the burst.
      const whole = target === CODE_FIELD && start?.el ? `${start.value}${code}`.trim() : code;
      const restore = target === CODE_FIELD ? "" : start?.value;
      if (start?.el?.isConnected && restore !== undefined && start.el.value !== restore) setFieldText(start.el, restore);
      flushTypedFields();
      latest.current(whole, target);
    };
    const reconfigure = () => {
      settings = loadScannerSettings();
      detector.configure(settings);
    };
    // A dock field's keydown stops here too, after the scanner read it (typed-input.tsx): one listener, one call per key.
    const listener = (e: KeyboardEvent) => {
      onKey(e);
      keepFromReact(e);
    };
    window.addEventListener("keydown", listener, true);
    window.addEventListener(SCANNER_SETTINGS_EVENT, reconfigure);
    return () => {
      window.removeEventListener("keydown", listener, true);
      window.removeEventListener(SCANNER_SETTINGS_EVENT, reconfigure);
    };
  }, []);
}
