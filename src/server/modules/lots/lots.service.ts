import type { ModelDb } from "../../db/client";
import { rows } from "../../db/sql";
import { formatDateOrNull } from "../../lib/dates";
import { canonical } from "../../lib/decimal";
import { DomainError } from "../../lib/errors";
import * as q from "./lots.queries";

/** Open lots (residual above zero), earliest expiry first, no expiry last, then by code. */
export async function listOpenLots(db: ModelDb, articoloId: number, magazzino: number) {
  const article = await db.articolo.findUnique({ where: { id: articoloId }, select: { id: true, codice: true } });
  if (!article) throw new DomainError("non_trovato", `L'articolo ${articoloId} non esiste.`);
  const warehouse = await db.magazzino.findUnique({ where: { id: magazzino }, select: { id: true } });
  if (!warehouse) throw new DomainError("magazzino_non_trovato", `Il magazzino ${magazzino} non esiste.`, { campo: "magazzino" });
  const lots = await rows(db, q.openLots(articoloId, magazzino));
  return {
    articolo: article,
    magazzino,
    lotti: lots.map((l) => ({ lotto: l.codice, scadenza: formatDateOrNull(l.scadenza), residua: canonical(l.residua) })),
  };
}
