import { Prisma, type Db } from "../../db/client";
import { formatInstant } from "../../lib/dates";
import { containsPattern } from "../../lib/sql";
import { cutPage, syncBound } from "../lists/lists";
import type { ListClientsInput } from "./clients.schemas";

/** A client's own fields (the import compares these with the file). */
export const clientFields = {
  id: true,
  codice: true,
  ragione_sociale: true,
  partita_iva: true,
  codice_fiscale: true,
  email: true,
  telefono: true,
  indirizzo: true,
  cap: true,
  citta: true,
  provincia: true,
  nazione: true,
} satisfies Prisma.ClienteSelect;

const clientSelect = { ...clientFields, creato_il: true } satisfies Prisma.ClienteSelect;

/** GET /clienti: `da`/`a` read the creation date in the service time zone. */
export async function listClients(db: Db, input: ListClientsInput, timeZone: string) {
  const limite = input.limite ?? 100;
  const dopo = input.dopo ?? 0;
  const bound = await syncBound(db, "clienti");
  const rows = await db.cliente.findMany({
    where: {
      id: { gt: dopo },
      data: {
        ...(input.da ? { gte: new Date(`${input.da}T00:00:00Z`) } : {}),
        ...(input.a ? { lte: new Date(`${input.a}T00:00:00Z`) } : {}),
      },
    },
    orderBy: { id: "asc" },
    take: limite + 1,
    select: clientSelect,
  });
  const page = cutPage(rows, limite, bound, dopo);
  return {
    clienti: page.rows.map((c) => ({ ...c, creato_il: formatInstant(timeZone, c.creato_il) })),
    altri: page.altri,
    cursore: page.cursore,
  };
}

/** Clients a picker offers: by code, name or VAT number, up to 20; without text, the first 20 by name. */
export async function searchClients(db: Db, cerca: string) {
  const pattern = containsPattern(cerca);
  return db.$queryRaw<{ id: number; codice: string; ragione_sociale: string; partita_iva: string | null }[]>`
    SELECT id, codice, ragione_sociale, partita_iva
      FROM clienti
     WHERE ${cerca} = '' OR codice ILIKE ${pattern} OR ragione_sociale ILIKE ${pattern} OR partita_iva = ${cerca}
     ORDER BY upper(codice) = upper(${cerca}) DESC, ragione_sociale, id
     LIMIT 20`;
}
