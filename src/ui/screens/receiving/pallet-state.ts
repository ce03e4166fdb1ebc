import type { PalletOutput } from "../../../server/modules/arrivals/receiving.schemas";
import type { Outcome } from "../../feedback";
import type { PalletDraft, PalletMark } from "./pallet-draft";

export interface PalletMessage {
  outcome: Outcome;
  title: string;
  text: string;
}

/**
 * The pallet card's state (usePallet), a pure reducer. Named states (`palletPhase`):
 * - `none`: no card; codes go to the row-by-row scan;
 * - `open`: an announced pallet shown, nothing declared on it (a code that is not its SSCC closes it);
 * - `declared`: a difference marked or being written (a code read waits in `held` for the receipt or the close);
 * - `sending`: Enter sent the receipt, the answer not yet in;
 * - `received`: the pallet shown was received already (here, by another handheld, or before): Enter closes it.
 */
export interface PalletState {
  /** The pallet shown; null: no card (a pallet no notice announces shows none, only the message). */
  collo: PalletOutput | null;
  marks: Record<number, PalletMark>;
  /** The difference form open on a row. */
  draft: PalletDraft | null;
  photos: Record<number, Blob>;
  /** Marks kept on a card whose receipt was refused (received meanwhile elsewhere): shown, never sent. */
  unrecorded: boolean;
  /** The codes read while the card held them, to read once it goes. */
  held: string[];
  sending: boolean;
  message: PalletMessage | null;
}

export type PalletEvent =
  /** A pallet read: its card, fresh (null: not announced). */
  | { type: "opened"; collo: PalletOutput | null }
  /** The card goes, with its marks, photos and form (the codes it held are read next). */
  | { type: "closed" }
  | { type: "held"; code: string }
  | { type: "said"; message: PalletMessage | null }
  | { type: "marked"; indice: number; mark: PalletMark | null }
  | { type: "draftOpened"; draft: PalletDraft }
  | { type: "draftChanged"; patch: Partial<PalletDraft> }
  | { type: "draftClosed" }
  /** The form made a mark. */
  | { type: "draftTaken"; mark: PalletMark }
  | { type: "photo"; indice: number; file: Blob | null }
  | { type: "sending" }
  | { type: "answered" }
  /** Another handheld received the pallet first: the card shows it received; the marks stay, not recorded. */
  | { type: "receivedElsewhere"; collo: PalletOutput; unrecorded: boolean };

export const noPallet: PalletState = {
  collo: null,
  marks: {},
  draft: null,
  photos: {},
  unrecorded: false,
  held: [],
  sending: false,
  message: null,
};

export type PalletPhase = "none" | "open" | "declared" | "sending" | "received";

/** Something declared on the card that closing it would drop: a mark, or the form open. */
export const declared = (s: PalletState) =>
  s.collo !== null && s.collo.stato === "atteso" && (Object.keys(s.marks).length > 0 || s.draft !== null);

export function palletPhase(s: PalletState): PalletPhase {
  if (s.collo === null) return "none";
  if (s.sending) return "sending";
  if (s.collo.stato === "ricevuto") return "received";
  return declared(s) ? "declared" : "open";
}

const without = <T>(all: Record<number, T>, indice: number): Record<number, T> => {
  const { [indice]: _, ...rest } = all;
  return rest;
};

export function palletStep(s: PalletState, e: PalletEvent): PalletState {
  switch (e.type) {
    case "opened":
      return { ...s, collo: e.collo, marks: {}, photos: {}, draft: null, unrecorded: false };
    case "closed":
      return { ...noPallet, message: s.message };
    case "held":
      return { ...s, held: [...s.held, e.code] };
    case "said":
      return { ...s, message: e.message };
    case "marked":
      return {
        ...s,
        marks: e.mark === null ? without(s.marks, e.indice) : { ...s.marks, [e.indice]: e.mark },
        photos: e.mark === null ? without(s.photos, e.indice) : s.photos,
      };
    case "draftOpened":
      return { ...s, draft: e.draft };
    case "draftChanged":
      return s.draft ? { ...s, draft: { ...s.draft, ...e.patch } } : s;
    case "draftClosed":
      return s.draft ? { ...s, draft: null } : s;
    case "draftTaken":
      return s.draft ? { ...s, marks: { ...s.marks, [s.draft.indice]: e.mark }, draft: null } : s;
    case "photo":
      return { ...s, photos: e.file === null ? without(s.photos, e.indice) : { ...s.photos, [e.indice]: e.file } };
    case "sending":
      return { ...s, sending: true };
    case "answered":
      return { ...s, sending: false };
    case "receivedElsewhere":
      return { ...s, collo: e.collo, unrecorded: e.unrecorded };
  }
}
