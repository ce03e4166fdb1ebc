import { SIZES } from "../server/modules/labels/label-model";
import { addPrinterInput, formatAddress, updatePrinterInput } from "../server/modules/printers/printers.schemas";
import { addPrinter, listPrinters, setPrinterActive, updatePrinter } from "../server/modules/printers/printers.service";
import { parseOptions, UsageError, type Run, table } from "./command";

/** Label printers from a terminal (docs/api.md section 13): the same service as the screen /stampanti. */

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

const MAX_ID = 2_147_483_647;

function printerId(value: string | undefined, usage: string): number {
  if (value === undefined) throw new UsageError(`indicare l'id della stampante (stampante list lo mostra): ${usage}`);
  const n = Number(value);
  if (!/^\d+$/.test(value) || n <= 0 || n > MAX_ID) {
    throw new UsageError(`l'id della stampante deve essere un numero intero maggiore di zero: ricevuto '${value}'`);
  }
  return n;
}

/** `stampante update ID [--nome N] [--indirizzo host:porta] [--dimensione D]`: the fields given change. */
function update(args: string[]): Run {
  const usage = `stampante update ID [--nome N] [--indirizzo host:porta] [--dimensione ${SIZES.join("|")}]`;
  const { values, positionals } = parseOptions(
    args,
    { nome: { type: "string" }, indirizzo: { type: "string" }, dimensione: { type: "string" } },
    1,
  );
  const id = printerId(positionals[0], usage);
  if (values.nome === undefined && values.indirizzo === undefined && values.dimensione === undefined) {
    throw new UsageError(`indicare che cosa cambiare: ${usage}`);
  }
  const parsed = updatePrinterInput.safeParse({ id, ...values });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`--${String(issue.path[0] ?? "")}: ${issue.message}`);
  }
  const { nome, indirizzo, dimensione } = parsed.data;
  return async (db) => {
    const p = await updatePrinter(db.prisma, "riga_di_comando", {
      id,
      nome,
      indirizzo: indirizzo && formatAddress(indirizzo),
      dimensione,
    });
    console.log(`Stampante ${p.id} '${p.nome}': ${p.indirizzo}, etichette ${p.dimensione} mm${p.attiva ? "" : " (disattivata)"}.`);
  };
}

function setActive(attiva: boolean) {
  return (args: string[]): Run => {
    const id = printerId(parseOptions(args, {}, 1).positionals[0], `stampante ${attiva ? "enable" : "disable"} ID`);
    return async (db) => {
      const p = await setPrinterActive(db.prisma, "riga_di_comando", id, attiva);
      console.log(
        attiva
          ? `Stampante ${p.id} '${p.nome}' attiva: riceve di nuovo le stampe.`
          : `Stampante ${p.id} '${p.nome}' disattivata: non riceve stampe né è proposta ai dispositivi (stampante enable ${p.id} la riattiva).`,
      );
    };
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
      table([
        ["id", "nome", "indirizzo", "dimensione", "stato"],
        ...stampanti.map((p) => [String(p.id), p.nome, p.indirizzo, p.dimensione, p.attiva ? "attiva" : "disattivata"]),
      ]),
    );
  };
}

export function printerCommand(args: string[]): Run {
  const [sub, ...rest] = args;
  if (sub === "add") return add(rest);
  if (sub === "list") return list(rest);
  if (sub === "update") return update(rest);
  if (sub === "disable") return setActive(false)(rest);
  if (sub === "enable") return setActive(true)(rest);
  throw new UsageError(
    sub === undefined ? "manca il sottocomando: stampante add|list|update|disable|enable" : `sottocomando sconosciuto: stampante ${sub}`,
  );
}
