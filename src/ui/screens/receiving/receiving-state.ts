import type { Current, Feedback, PendingChoice, Problem } from "./types";

/**
 * The receiving bay's screen state (useReceiving), a pure reducer over named states and events.
 *
 * Named states (`screen.name`):
 * - `idle`: no row shown; the next code read is looked up and shown;
 * - `row`: a row shown with its fields, not yet registered (the next scan registers it first, when it can);
 * - `choice`: the row could not be registered as it is when a code came: the screen stops on the dialog
 *   (complete the row, or discard it), and the codes read meanwhile wait in `held`.
 * Beside the screen: the codes `held` for the row, the outcome shown, and the code being looked up.
 */
export type DockScreen = { name: "idle" } | { name: "row"; row: Current } | { name: "choice"; row: Current; choice: PendingChoice };

export interface DockState {
  screen: DockScreen;
  /** The codes read while a row waited (its registration, or the choice): read, in order, once it goes. */
  held: string[];
  feedback: Feedback | null;
  /** The code being looked up (the service, or the device's copy), shown meanwhile. */
  reading: string | null;
  /** The last code looked up, shown under the scan field. */
  lastCode: string | null;
}

export type DockEvent =
  | { type: "lookingUp"; code: string }
  | { type: "lookedUp" }
  /** A new row shown, in place of any (its fields are the form's). */
  | { type: "shown"; row: Current }
  /** The row shown changed (counted again, its quantity typed) or came back (a reload): shown as it is now. */
  | { type: "rowChanged"; row: Current }
  /** The row goes: registered (or queued), left, or discarded. */
  | { type: "rowGone" }
  /** The codes waiting for the row, as they are now. */
  | { type: "held"; codes: string[] }
  /** The codes waiting are read now: none waits any more. */
  | { type: "released" }
  /** The screen stops on the row: the choice opens, with every code waiting. */
  | { type: "stopped"; row: Current; problem: Problem; codes: string[] }
  /** A code read while the choice is open: it waits with the others, and the choice says so. */
  | { type: "joined"; code: string }
  /** «Completa la riga»: the choice closes on the row, the codes still waiting for it. */
  | { type: "completed" }
  /** «Scarta la riga»: the choice closes and the row goes (the codes waiting are released next). */
  | { type: "discarded" }
  | { type: "said"; feedback: Feedback | null }
  /** The delivery note written: the refusal that asked for it gives way. */
  | { type: "ddtWritten"; ddt: string };

export const initialDock: DockState = { screen: { name: "idle" }, held: [], feedback: null, reading: null, lastCode: null };

/** The row shown, in either state that shows one. */
export const rowOf = (s: DockState): Current | null => (s.screen.name === "idle" ? null : s.screen.row);
/** The choice open, if any. */
export const choiceOf = (s: DockState): PendingChoice | null => (s.screen.name === "choice" ? s.screen.choice : null);

export function dockStep(s: DockState, e: DockEvent): DockState {
  switch (e.type) {
    case "lookingUp":
      return { ...s, reading: e.code, lastCode: e.code };
    case "lookedUp":
      return { ...s, reading: null };
    case "shown":
      return { ...s, screen: { name: "row", row: e.row } };
    case "rowChanged":
      return { ...s, screen: s.screen.name === "choice" ? { ...s.screen, row: e.row } : { name: "row", row: e.row } };
    case "rowGone":
    case "discarded":
      return { ...s, screen: { name: "idle" } };
    case "held":
      return { ...s, held: e.codes };
    case "released":
      return s.held.length === 0 ? s : { ...s, held: [] };
    case "stopped": {
      // The row on screen stays the one shown now (typed into meanwhile); the choice speaks of the one that stopped.
      const row = rowOf(s) ?? e.row;
      return { ...s, held: e.codes, screen: { name: "choice", row, choice: { row: e.row, problem: e.problem, codes: e.codes } } };
    }
    case "joined": {
      if (s.screen.name !== "choice") return s;
      const codes = [...s.held, e.code];
      return { ...s, held: codes, screen: { ...s.screen, choice: { ...s.screen.choice, codes } } };
    }
    case "completed":
      return s.screen.name === "choice" ? { ...s, screen: { name: "row", row: s.screen.row } } : s;
    case "said":
      return { ...s, feedback: e.feedback };
    case "ddtWritten": {
      const ddt = e.ddt.trim();
      if (!ddt || s.feedback?.title !== "Indicare il DDT") return s;
      return { ...s, feedback: { outcome: "info", title: `DDT ${ddt}`, message: "Invio per registrare la riga mostrata." } };
    }
  }
}
