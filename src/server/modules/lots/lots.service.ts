import type { Db, Prisma } from "../../db/client";
import { formatDateOrNull } from "../../lib/dates";
import { canonical } from "../../lib/decimal";
import { DomainError } from "../../lib/errors";

/** Open lots (residual above zero), earliest expiry first, no expiry last, then by code. */
export async function listOpenLots(db: Db, articoloId: number, magazzino: number) {
  const article = await db.articolo.findUnique({ where: { id: articoloId }, select: { id: true, codice: true } });
  if (!article) throw new DomainError("non_trovato", `L'articolo ${articoloId} non esiste.`);
  const warehouse = await db.magazzino.findUnique({ where: { id: magazzino }, select: { id: true } });
  if (!warehouse) throw new DomainError("magazzino_non_trovato", `Il magazzino ${magazzino} non esiste.`, { campo: "magazzino" });
  const lots = await db.$queryRaw<{ codice: string; scadenza: Date | null; residua: Prisma.Decimal }[]>`
    SELECT codice, scadenza, residua FROM lotti
     WHERE articolo_id = ${articoloId} AND magazzino_id = ${magazzino} AND residua > 0
     ORDER BY scadenza ASC NULLS LAST, codice ASC`;
  return {
    articolo: article,
    magazzino,
    lotti: lots.map((l) => ({ lotto: l.codice, scadenza: formatDateOrNull(l.scadenza), residua: canonical(l.residua) })),
  };
}
