import type { Db } from "../../db/client";
import { rows, rowsInOrder } from "../../db/sql";
import { formatInstant } from "../../lib/dates";
import { newestPage, syncBound } from "../lists/lists";
import type { HoldersOutput, NewestReservationsInput, ScreenReservationOutput } from "./reservations-screens.schemas";
import { HOLDERS_SHOWN } from "./reservations-screens.schemas";
import * as q from "./reservations-screens.queries";

/**
 * The reservations screen's reads (docs/api.md section 14, "the screens"). The quantities are the ones
 * GET /prenotazioni shows; what a person needs beside them (the customer's and warehouse's names, the
 * articles' descriptions, who wrote it) is joined in, and the state is the one in force.
 */

/** A page newest first, paged by `prima` as the movements' and sales' screens, below the list's sync bound. */
export async function listNewestReservations(db: Db, input: NewestReservationsInput, timeZone: string) {
  const bound = await syncBound(db, "prenotazioni");
  const page = await newestPage(bound, input.prima, input.limite ?? 50, (below, take) =>
    rows(db, q.reservationsBefore(below, take, input)),
  );
  return {
    prenotazioni: page.rows.map(
      ({ scade_ms, ...r }): ScreenReservationOutput => ({
        ...r,
        stato: r.stato as ScreenReservationOutput["stato"],
        scade_il: scade_ms === null ? null : formatInstant(timeZone, Number(scade_ms)),
      }),
    ),
    prima: page.prima,
  };
}

/** Who holds an article now: its held rows, oldest reservation first (the first HOLDERS_SHOWN), and the totals of all. */
export async function holdersOfArticle(db: Db, articolo: number): Promise<HoldersOutput> {
  const [shown, [all]] = await rowsInOrder(db, q.holdersOfArticle(articolo, HOLDERS_SHOWN), q.heldOfArticle(articolo));
  return { righe: shown, totale_righe: all?.righe ?? 0, totale_prenotata: all?.prenotata ?? "0" };
}
