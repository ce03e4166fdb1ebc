import { EVENT_TYPES } from "../lib/domain-lists";
import { eventTypeList } from "../server/modules/events/events.schemas";
import {
  type DeliveryMode,
  type EndpointOutput,
  type EndpointSettings,
  MAX_EVENTS_PER_REQUEST,
} from "../server/modules/webhooks/webhooks.schemas";
import {
  createEndpoint,
  listEndpoints,
  replayEndpoint,
  setEndpointActive,
  updateEndpointSettings,
} from "../server/modules/webhooks/webhooks.service";
import { parseOptions, UsageError, type Run, table } from "./command";

/** Webhook endpoints from a terminal (docs/api.md section 10): the same services as the screen /webhook. */

const MAX_ID = 2_147_483_647;

function positiveInteger(what: string, value: string | undefined, usage: string): number {
  if (value === undefined) throw new UsageError(`indicare ${what}: ${usage}`);
  const n = Number(value);
  if (!/^\d+$/.test(value) || n <= 0 || n > MAX_ID) {
    throw new UsageError(`${what} deve essere un numero intero maggiore di zero: ricevuto '${value}'`);
  }
  return n;
}

/** `--eventi a,b`: known types, none twice; a mistake names the unknown ones and lists those allowed. */
function eventTypes(value: string | undefined): (typeof EVENT_TYPES)[number][] {
  if (value === undefined || value.trim() === "") {
    throw new UsageError(`indicare i tipi di evento: --eventi tipo[,tipo] (ammessi: ${EVENT_TYPES.join(", ")})`);
  }
  const parsed = eventTypeList("i tipi").safeParse(value);
  if (parsed.success) return parsed.data;
  const unknown = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => !(EVENT_TYPES as readonly string[]).includes(s));
  if (unknown.length > 0) {
    const names = unknown.map((s) => (s === "" ? "(vuoto)" : s)).join(", ");
    throw new UsageError(
      `${unknown.length === 1 ? "tipo di evento sconosciuto" : "tipi di evento sconosciuti"}: ${names}; quelli ammessi sono ${EVENT_TYPES.join(", ")}`,
    );
  }
  throw new UsageError(`--eventi: ${parsed.error.issues[0]?.message ?? "elenco non valido"}`);
}

/** "2026-11-20T10:15:00.000+01:00" → "2026-11-20 10:15" (the service's time zone, as the other lists). */
const when = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "-");

function lastFailure(e: EndpointOutput): string {
  const f = e.ultimo_errore;
  if (!f) return "-";
  return `${when(f.il)} ${f.stato_http === null ? f.esito : `HTTP ${f.stato_http}`}`;
}

function named(e: EndpointOutput): string {
  return `webhook ${e.id} (${e.url}, eventi ${e.eventi.join(", ")}; ${perRequest(e.eventi_per_richiesta)}, consegna ${e.consegna})`;
}

const perRequest = (n: number) => (n === 1 ? "1 evento per richiesta" : `${n} eventi per richiesta`);

/** The throughput options (docs/api.md section 10): `--per-richiesta N`, `--parallela` or `--ordinata`. */
const THROUGHPUT = {
  "per-richiesta": { type: "string" },
  parallela: { type: "boolean" },
  ordinata: { type: "boolean" },
} as const;

function throughput(values: { "per-richiesta"?: string; parallela?: boolean; ordinata?: boolean }): {
  eventi_per_richiesta?: number;
  consegna?: DeliveryMode;
} {
  if (values.parallela && values.ordinata) throw new UsageError("--parallela e --ordinata si escludono: indicarne una sola");
  const raw = values["per-richiesta"];
  const n = Number(raw);
  if (raw !== undefined && (!/^\d{1,3}$/.test(raw) || n < 1 || n > MAX_EVENTS_PER_REQUEST)) {
    throw new UsageError(`--per-richiesta deve essere un numero intero da 1 a ${MAX_EVENTS_PER_REQUEST}: ricevuto '${raw}'`);
  }
  return {
    ...(raw === undefined ? {} : { eventi_per_richiesta: n }),
    ...(values.parallela ? { consegna: "parallela" as const } : values.ordinata ? { consegna: "ordinata" as const } : {}),
  };
}

function create(args: string[]): Run {
  const { values } = parseOptions(
    args,
    { url: { type: "string" }, eventi: { type: "string" }, descrizione: { type: "string" }, ...THROUGHPUT },
    0,
  );
  const url = values.url?.trim();
  if (!url) throw new UsageError("indicare l'indirizzo: --url https://…");
  if (url.length > 2000) throw new UsageError("l'indirizzo (--url) è di al massimo 2000 caratteri");
  const eventi = eventTypes(values.eventi);
  const settings = throughput(values);
  const descrizione = values.descrizione?.trim() || undefined;
  if (descrizione !== undefined && descrizione.length > 200)
    throw new UsageError("la descrizione (--descrizione) è di al massimo 200 caratteri");
  return async (db, config) => {
    const { endpoint, segreto } = await createEndpoint(
      db.prisma,
      "riga_di_comando",
      { url, eventi, ...settings, ...(descrizione === undefined ? {} : { descrizione }) },
      { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS === "true", timeZone: config.SERVICE_TIME_ZONE },
    );
    // stdout carries the secret alone, so that `SEGRETO=$(npm run -s cli -- webhook create …)` just works.
    process.stdout.write(`${segreto}\n`);
    console.error(
      `Creato il ${named(endpoint)}: riceverà gli eventi registrati da ora in poi. ` +
        "Il segreto per verificare le firme è mostrato solo ora e non si può recuperare: conservarlo in un luogo sicuro.",
    );
  };
}

function list(args: string[]): Run {
  parseOptions(args, {}, 0);
  return async (db, config) => {
    const { endpoint } = await listEndpoints(db.prisma, config.SERVICE_TIME_ZONE);
    if (endpoint.length === 0) {
      console.log("Nessun webhook. Crearne uno con: webhook create --url URL --eventi tipo[,tipo]");
      return;
    }
    console.log(
      table([
        ["id", "attivo", "url", "eventi", "in attesa", "fallite", "ultimo successo", "ultimo errore", "per richiesta", "consegna"],
        ...endpoint.map((e) => [
          String(e.id),
          e.attivo ? "sì" : "no",
          e.url,
          e.eventi.join(","),
          String(e.in_attesa),
          String(e.fallite),
          when(e.ultimo_successo),
          lastFailure(e),
          String(e.eventi_per_richiesta),
          e.consegna,
        ]),
      ]),
    );
  };
}

function setActive(attivo: boolean) {
  return (args: string[]): Run => {
    const sub = attivo ? "enable" : "disable";
    const id = positiveInteger("il webhook", parseOptions(args, {}, 1).positionals[0], `webhook ${sub} ID`);
    return async (db, config) => {
      const e = await setEndpointActive(db.prisma, "riga_di_comando", id, attivo, config.SERVICE_TIME_ZONE);
      const skipped = e.salto
        ? ` Sequenze saltate dopo più di 7 giorni di disattivazione: ${e.salto.da}–${e.salto.a} (webhook replay ${e.id} --da ${e.salto.da} le consegna).`
        : "";
      console.log(
        attivo
          ? `Riattivato il ${named(e)}: riprende le consegne.${skipped}`
          : `Disattivato il ${named(e)}: nessuna consegna finché non viene riattivato (webhook enable ${e.id}); ` +
              "gli eventi restano da consegnare per 7 giorni, poi la riattivazione riparte dagli eventi nuovi.",
      );
    };
  };
}

/** `webhook update ID [--eventi a,b] [--per-richiesta N] [--parallela | --ordinata]`: the fields given change. */
function update(args: string[]): Run {
  const { values, positionals } = parseOptions(args, { eventi: { type: "string" }, ...THROUGHPUT }, 1);
  const usage = "webhook update ID [--eventi tipo[,tipo]] [--per-richiesta N] [--parallela | --ordinata]";
  const id = positiveInteger("il webhook", positionals[0], usage);
  const changes: EndpointSettings = {
    ...(values.eventi === undefined ? {} : { eventi: eventTypes(values.eventi) }),
    ...throughput(values),
  };
  if (Object.keys(changes).length === 0) throw new UsageError(`indicare che cosa cambiare: ${usage}`);
  return async (db, config) => {
    const e = await updateEndpointSettings(db.prisma, "riga_di_comando", id, changes, config.SERVICE_TIME_ZONE);
    console.log(`Modificato il ${named(e)}: vale per i lotti non ancora formati.`);
  };
}

function replay(args: string[]): Run {
  const { values, positionals } = parseOptions(args, { da: { type: "string" } }, 1);
  const id = positiveInteger("il webhook", positionals[0], "webhook replay ID --da N");
  const da = positiveInteger("la sequenza di partenza (--da)", values.da, "webhook replay ID --da N");
  return async (db) => {
    const { riaccodate } = await replayEndpoint(db.prisma, "riga_di_comando", id, da);
    console.log(
      riaccodate === 0
        ? `Nessun evento da riconsegnare al webhook ${id} dalla sequenza ${da}.`
        : `Webhook ${id}: ${riaccodate} ${riaccodate === 1 ? "evento sarà riconsegnato" : "eventi saranno riconsegnati"} dalla sequenza ${da}, in ordine.`,
    );
  };
}

export function webhookCommand(args: string[]): Run {
  const [sub, ...rest] = args;
  if (sub === "create") return create(rest);
  if (sub === "list") return list(rest);
  if (sub === "disable") return setActive(false)(rest);
  if (sub === "enable") return setActive(true)(rest);
  if (sub === "replay") return replay(rest);
  if (sub === "update") return update(rest);
  throw new UsageError(
    sub === undefined
      ? "manca il sottocomando: webhook create|list|update|disable|enable|replay"
      : `sottocomando sconosciuto: webhook ${sub}`,
  );
}
