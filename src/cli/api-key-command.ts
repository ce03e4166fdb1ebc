import { formatInstant } from "../server/lib/dates";
import type { Scope } from "../server/modules/auth/actor";
import { createApiKey, listApiKeys, revokeApiKey } from "../server/modules/auth/api-keys.service";
import { Failure, parseOptions, UsageError, type Run, table } from "./command";

const SCOPES: readonly Scope[] = ["lettura", "scrittura", "webhook"];

function positiveNumber(option: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${option} deve essere un numero ${integer ? "intero " : ""}maggiore di zero: ricevuto '${value}'`);
  }
  return n;
}

function create(args: string[]): Run {
  const { values } = parseOptions(
    args,
    {
      name: { type: "string" },
      scopes: { type: "string" },
      "limite-al-secondo": { type: "string" },
      raffica: { type: "string" },
    },
    0,
  );
  const nome = values.name?.trim();
  if (!nome) throw new UsageError("indicare il nome della chiave: --name NOME");
  const permessi = (values.scopes ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (permessi.length === 0)
    throw new UsageError("indicare i permessi: --scopes lettura, --scopes lettura,scrittura o --scopes lettura,webhook");
  const unknown = permessi.filter((p) => !SCOPES.includes(p as Scope));
  if (unknown.length > 0)
    throw new UsageError(`permessi sconosciuti: ${unknown.join(", ")}; quelli ammessi sono lettura, scrittura e webhook`);
  const limiteAlSecondo = positiveNumber("limite-al-secondo", values["limite-al-secondo"], false);
  const raffica = positiveNumber("raffica", values.raffica, true);
  return async (db) => {
    const key = await createApiKey(db.prisma, { nome, permessi: permessi as Scope[], limiteAlSecondo, raffica }, "riga_di_comando");
    // stdout carries the key alone, so that `KEY=$(npm run -s cli -- api-key create …)` just works.
    process.stdout.write(`${key.chiave}\n`);
    console.error(
      `Chiave API '${key.nome}' creata (id ${key.id}, prefisso ${key.prefisso}, permessi ${key.permessi.join(", ")}). ` +
        "È mostrata solo ora e non si può recuperare: conservarla in un luogo sicuro.",
    );
  };
}

function list(args: string[]): Run {
  parseOptions(args, {}, 0);
  return async (db, config) => {
    const keys = await listApiKeys(db.prisma);
    if (keys.length === 0) {
      console.log("Nessuna chiave API. Crearne una con: api-key create --name NOME --scopes lettura,scrittura");
      return;
    }
    const when = (d: Date | null) => (d ? formatInstant(config.SERVICE_TIME_ZONE, d).slice(0, 16).replace("T", " ") : "-");
    console.log(
      table([
        ["id", "nome", "prefisso", "permessi", "creata", "revocata", "ultimo uso"],
        ...keys.map((k) => [
          String(k.id),
          k.nome,
          k.prefisso,
          k.permessi.join(","),
          when(k.creata_il),
          when(k.revocata_il),
          when(k.ultimo_uso_il),
        ]),
      ]),
    );
  };
}

function revoke(args: string[]): Run {
  const target = parseOptions(args, {}, 1).positionals[0];
  if (target === undefined) throw new UsageError("indicare la chiave da revocare: api-key revoke ID|PREFISSO");
  return async (db) => {
    if (!(await revokeApiKey(db.prisma, target, "riga_di_comando"))) {
      throw new Failure(`Nessuna chiave attiva con id o prefisso '${target}': vedere api-key list.`);
    }
    console.log(`Chiave '${target}' revocata: da ora le richieste che la usano ricevono 401.`);
  };
}

export function apiKeyCommand(args: string[]): Run {
  const [sub, ...rest] = args;
  if (sub === "create") return create(rest);
  if (sub === "list") return list(rest);
  if (sub === "revoke") return revoke(rest);
  throw new UsageError(
    sub === undefined ? "manca il sottocomando: api-key create|list|revoke" : `sottocomando sconosciuto: api-key ${sub}`,
  );
}
