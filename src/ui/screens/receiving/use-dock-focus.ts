"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import { isEditable } from "../../scanner/use-scanner";
import type { PendingField } from "./types";

export type FocusTarget = PendingField | "scadenza" | "scan";

/**
 * Puts the caret in a field once the screen shows it (a row's lot field appears with the row): the request is
 * applied after the render it was made in. A lot is brought into view on a handheld, where it sits low; a
 * quantity or a lot already written is selected, so what is typed or read next replaces it.
 */
function useFocusRequest(refs: Record<FocusTarget, React.RefObject<HTMLInputElement | null>>) {
  const [request, setRequest] = useState<{ field: FocusTarget; n: number } | null>(null);
  const fields = useRef(refs);
  fields.current = refs;
  useEffect(() => {
    if (!request) return;
    const el = fields.current[request.field].current;
    el?.focus();
    if (request.field === "lotto") el?.scrollIntoView({ block: "center" });
    if (request.field === "quantita" || request.field === "lotto") el?.select();
  }, [request]);
  return (field: FocusTarget) => setRequest((r) => ({ field, n: (r?.n ?? 0) + 1 }));
}

/**
 * Where the caret is on the receiving bay: the screen's fields, the scan field ready at once and again after
 * each step (`focusScan`), a field asked for once it shows (`focusField`). A person's keystroke that lands
 * nowhere in particular goes to the scan field; a scanner's burst goes to the scan logic wherever it lands
 * (useScanner, in useReceiving).
 */
export function useDockFocus() {
  const scanRef = useRef<HTMLInputElement>(null);
  const ddtRef = useRef<HTMLInputElement>(null);
  const warehouseRef = useRef<HTMLInputElement>(null);
  const quantityRef = useRef<HTMLInputElement>(null);
  const lotRef = useRef<HTMLInputElement>(null);
  const expiryRef = useRef<HTMLInputElement>(null);

  const focusScan = useCallback(() => {
    requestAnimationFrame(() => scanRef.current?.focus());
  }, []);

  useEffect(() => {
    // The caret in the scan field from the start, unless the operator is already in a field: on a slow
    // handheld the screen is drawn before it runs, and a delivery note begun then must not go on in the
    // scan field.
    requestAnimationFrame(() => {
      if (!isEditable(document.activeElement)) scanRef.current?.focus();
    });
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (isEditable(document.activeElement) || document.querySelector("[role=dialog]")) return;
      if (e.key.length === 1 || e.key === "Enter") scanRef.current?.focus();
    };
    document.addEventListener("keydown", onKey, true);
    return () => document.removeEventListener("keydown", onKey, true);
  }, []);

  const focusField = useFocusRequest({
    ddt: ddtRef,
    magazzino: warehouseRef,
    quantita: quantityRef,
    lotto: lotRef,
    scadenza: expiryRef,
    scan: scanRef,
  });
  // One object for the life of the screen: the row's card is memoised on it.
  const [rowRefs] = useState(() => ({ quantity: quantityRef, lot: lotRef, expiry: expiryRef }));
  return { scanRef, ddtRef, warehouseRef, rowRefs, focusScan, focusField };
}
