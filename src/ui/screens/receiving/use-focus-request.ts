"use client";
import { useEffect, useRef, useState } from "react";
import type { PendingField } from "./types";

export type FocusTarget = PendingField | "scadenza" | "scan";

/**
 * Puts the caret in a field once the screen shows it (a row's lot field appears with the row): the request is
 * applied after the render it was made in. A lot is brought into view on a handheld, where it sits low; a
 * quantity or a lot already written is selected, so what is typed or read next replaces it.
 */
export function useFocusRequest(refs: Record<FocusTarget, React.RefObject<HTMLInputElement | null>>) {
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
