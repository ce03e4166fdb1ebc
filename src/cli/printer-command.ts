import { SIZES } from "../server/modules/labels/label-model";
import { addPrinterInput } from "../server/modules/printers/printers.schemas";
import { addPrinter, listPrinters } from "../server/modules/printers/printers.service";
import { parseOptions, UsageError, type Run, table } from "./command";

/** Label printers from a terminal (API.md section 13): the same service as the screen /stampanti. */

function add(args: string[]): Run {
  const { values } = parseOptions(args, { nome: { type: "string" }, indirizzo: { type: "string" }, dimensione: { type: "string" } }, 0);
  const parsed = addPrinterInput.safeParse({ nome: values.nome, indirizzo: values.indirizzo, dimensione: values.dimensione });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? "");
    throw new UsageError(
      values[field as keyof typeof values] === undefined
        ? `indicare --${field}: stampante add --nome N --indirizzo host:porta [--dimensione ${SIZES.join("|")}]`
        : `--${field}: ${issue.message}`,
    );
  }
  return async (db) => {
    const p = await addPrinter(db.prisma, "riga_di_comando", {
      nome: parsed.data.nome,
      indirizzo: `${parsed.data.indirizzo.host}:${parsed.data.indirizzo.porta}`,
      dimensione: parsed.data.dimensione,
    });
    console.log(`Stampante ${p.id} '${p.nome}' aggiunta: ${p.indirizzo}, etichette ${p.dimensione} mm.`);
  };
}

function list(args: string[]): Run {
  parseOptions(args, {}, 0);
  return async (db) => {
    const { stampanti } = await listPrinters(db.prisma);
    if (stampanti.length === 0) {
      console.log("Nessuna stampante registrata.");
      return;
    }
    console.log(
      table([["id", "nome", "indirizzo", "dimensione"], ...stampanti.map((p) => [String(p.id), p.nome, p.indirizzo, p.dimensione])]),
    );
  };
}

export function printerCommand(args: string[]): Run {
  const [sub, ...rest] = args;
  if (sub === "add") return add(rest);
  if (sub === "list") return list(rest);
  throw new UsageError(sub === undefined ? "manca il sottocomando: stampante add|list" : `sottocomando sconosciuto: stampante ${sub}`);
}
