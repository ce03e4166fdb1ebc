/**
 * The putaway screen's state (usePutaway), a pure reducer: what the operator has in hand and where it goes.
 * Kept across a reload (per user, wiped at sign-out), so it holds only what a reload must find.
 *
 * Named states (`phaseOf`): `idle` (nothing read), `goods` (an article's row shown, its destination not yet
 * read), `pallet` (a pallet shown, its destination not yet read), `ready` (the destination read: Enter
 * stores). The write in flight is the hook's (`sending`), not remembered: a reload finds `ready` again.
 */
export interface Choice {
  riga: number;
  /** The destination's code, once its label was read. */
  a: string | null;
  quantita: string;
  /** Someone typed the quantity: it is no longer "all of it". */
  typed: boolean;
  /** A pallet read by its SSCC: all of what of it waits goes to one destination (`riga`: its first part). */
  sscc?: string | null;
}

export type PutawayState = Choice | null;

export type PutawayEvent =
  /** An article's goods read: its row, all of what waits proposed. */
  | { type: "goods"; riga: number; quantita: string }
  /** A pallet read by its SSCC (`riga`: its first part). */
  | { type: "pallet"; riga: number; sscc: string }
  /** The destination's label read and valid. */
  | { type: "destination"; a: string }
  /** The service refused the destination: the label is read again. */
  | { type: "destinationRefused" }
  | { type: "quantityTyped"; quantita: string }
  /** Stored, queued, or left: the hands are free. */
  | { type: "done" };

export type PutawayPhase = "idle" | "goods" | "pallet" | "ready";

export function phaseOf(s: PutawayState): PutawayPhase {
  if (!s) return "idle";
  if (s.a) return "ready";
  return s.sscc ? "pallet" : "goods";
}

export function putawayStep(s: PutawayState, e: PutawayEvent): PutawayState {
  switch (e.type) {
    case "goods":
      return { riga: e.riga, a: null, quantita: e.quantita, typed: false };
    case "pallet":
      return { riga: e.riga, a: null, quantita: "", typed: false, sscc: e.sscc };
    case "destination":
      return s && { ...s, a: e.a };
    case "destinationRefused":
      return s && { ...s, a: null };
    case "quantityTyped":
      return s && { ...s, quantita: e.quantita, typed: true };
    case "done":
      return null;
  }
}
