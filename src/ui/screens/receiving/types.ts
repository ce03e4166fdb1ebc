import type { SearchOutput } from "@/server/modules/arrivals/arrivals.schemas";
import type { Outcome } from "../../feedback";

export type Order = SearchOutput["ordini"][number];
export type Row = Order["righe"][number];

export interface Current {
  order: Order;
  row: Row;
  lettura: SearchOutput["lettura"];
  /** The code read that showed this row. */
  code: string;
  /**
   * Whether someone settled the quantity: typed it, or counted it by scanning the row again. A quantity
   * nobody settled is the remainder the screen proposes: an explicit Enter registers it, the scan of the
   * next article does not (it stops on a choice instead).
   */
  confirmed: boolean;
  /** How many times the row was read in a row (counting by scan): 1 after the scan that showed it. */
  counted: number;
}

export interface Feedback {
  outcome: Outcome;
  title: string;
  message?: string;
}

/** What the operator may change of the row shown before registering it. */
export interface ArrivalFields {
  quantita: string;
  lotto: string;
  scadenza: string;
}

/** The field that keeps a row from being registered as it is. */
export type PendingField = "ddt" | "magazzino" | "quantita" | "lotto";

/** Why the row shown cannot be registered as it is: said to the operator, and the field to complete. */
export interface Problem {
  field: PendingField;
  title: string;
  message: string;
}

/** A scan over a row that could not be registered: the choice the screen stops on, and what it read. */
export interface PendingChoice {
  row: Current;
  problem: Problem;
  codes: string[];
}

/** The outcome of a registration, for the scan that asked for it (the screen's own state is a render behind). */
export interface Registered {
  done: boolean;
  feedback: Feedback;
}

/** A code read by the scanner is compared as the service reads it: case and surrounding blanks aside. */
export const sameCode = (a: string, b: string) => a.trim().toUpperCase() === b.trim().toUpperCase();
