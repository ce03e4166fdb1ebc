import { getConfig } from "../server/config";
import { openDatabase } from "../server/db/runtime";
import { DomainError } from "../server/lib/errors";
import { apiKeyCommand } from "./api-key-command";
import { Failure, parseOptions, UsageError, type Run } from "./command";
import { demoCommand } from "./demo-command";
import { verifyLedger } from "../server/modules/ledger/verify.service";
import { importCommand } from "./import-command";
import { userCommand } from "./user-command";
import { webhookCommand } from "./webhook-command";
import { printerCommand } from "./printer-command";

/** Administration command line (docs/api.md section 6). Exit codes: 0 done, 1 not done, 2 wrong usage. */

const USAGE = `Uso: npm run -s cli -- <comando> [opzioni]

Comandi:
  import FILE.json
      Carica magazzini, articoli (con varianti), fornitori, clienti e ordini d'acquisto dal file JSON
      e stampa gli id assegnati. Se il file ha problemi li elenca tutti e non importa nulla.
      Ripetere l'importazione dello stesso file non cambia nulla.
  api-key create --name NOME --scopes lettura[,scrittura][,webhook] [--limite-al-secondo N] [--raffica N]
      Crea una chiave API e la stampa, da sola, su stdout: è mostrata solo questa volta. Con webhook
      (e lettura) la chiave gestisce i propri webhook da /api/v1/webhook; scrittura non lo comprende.
  api-key list
      Elenca le chiavi API (mai la chiave, né la sua impronta).
  api-key revoke ID|PREFISSO
      Revoca una chiave API.
  user create --username NOME --role operatore|responsabile|amministratore [--password PASSWORD]
      Crea un utente dell'interfaccia. Senza --password la password si legge da stdin (prima riga),
      o si digita senza eco se stdin è un terminale. Almeno 12 caratteri, diversa dal nome utente
      e non tra le password più usate.
  user list
      Elenca gli utenti (mai le password).
  webhook create --url URL --eventi TIPO[,TIPO] [--descrizione TESTO] [--per-richiesta N] [--parallela]
      Registra un webhook per i tipi di evento indicati (movimenti.registrati, arrivo.registrato,
      arrivo.annullato, giacenze.allineate, documento_vendita.emesso, ordine_acquisto.modificato,
      articolo.modificato, cliente.modificato, fornitore.modificato, magazzino.modificato,
      ubicazione.modificato, avviso_spedizione.modificato, ricevimento.differenza,
      reso_fornitore.registrato, prenotazione.modificata, prenotazione.scoperta) e stampa il suo
      segreto, da solo, su stdout: è mostrato solo questa volta. Gli indirizzi di reti private,
      di loopback e link-local sono rifiutati, salvo WEBHOOK_ALLOW_PRIVATE_NETWORKS=true. --per-richiesta N (1-100, predefinito 1):
      eventi per richiesta, in un corpo { "eventi": [...] } quando N > 1; --parallela: più richieste
      insieme, senza ordine (predefinito: una alla volta, in ordine di sequenza).
  webhook list
      Elenca i webhook: stato, tipi di evento, consegne in attesa e fallite, ultimo successo ed errore,
      eventi per richiesta e consegna.
  webhook update ID [--eventi TIPO[,TIPO]] [--per-richiesta N] [--parallela | --ordinata]
      Cambia i tipi di evento o le impostazioni di consegna (valgono per i lotti non ancora formati).
  webhook disable ID
  webhook enable ID
      Sospende o riprende le consegne di un webhook. Disattivato per più di 7 giorni, alla
      riattivazione riparte dagli eventi nuovi: le sequenze saltate si consegnano con replay.
  webhook replay ID --da N
      Consegna di nuovo al webhook gli eventi dei suoi tipi dalla sequenza N (inclusa).
  stampante add --nome NOME --indirizzo HOST[:PORTA] [--dimensione 100x50|100x150|50x25]
      Registra una stampante di etichette di rete (ZPL grezzo su TCP, porta 9100 se omessa). Il servizio
      si collegherà a quell'indirizzo: l'aggiunta è annotata nel registro amministrativo.
  stampante list
      Elenca le stampanti registrate, attive e disattivate.
  stampante update ID [--nome NOME] [--indirizzo HOST[:PORTA]] [--dimensione 100x50|100x150|50x25]
      Cambia nome, indirizzo o dimensione delle etichette di una stampante (il cambio è annotato nel
      registro amministrativo, con l'indirizzo vecchio e il nuovo).
  stampante disable ID
  stampante enable ID
      Disattiva o riattiva una stampante. Disattivata non riceve stampe né è proposta ai dispositivi;
      le sue stampe ancora in coda finiscono fallite, da ristampare su un'altra stampante.
  demo remove
      Toglie gli accessi dimostrativi: gli utenti e la chiave API creati al primo avvio e i file in
      DATA_DIR che ne conservano password e chiave (i dati dimostrativi restano). Rifiutato se non
      resterebbe alcun amministratore attivo.
  migrate
      Applica allo schema del database le migrazioni mancanti.
  verify
      Ricalcola dal registro dei movimenti ogni giacenza, lotto e quantità arrivata delle righe
      d'ordine (e lo stato degli ordini) e li confronta con quelli mantenuti. Esce con 1 se trova
      differenze, elencandole.

Il database è quello di DATABASE_URL, se impostata; altrimenti il PostgreSQL incorporato in DATA_DIR
(predefinita ./data), anche mentre il servizio è in esecuzione. Se DATABASE_URL è un pooler in modalità
transaction, DATABASE_DIRECT_URL indica il PostgreSQL stesso (per le migrazioni).

Codici di uscita: 0 riuscito, 1 non riuscito, 2 uso errato.`;

function migrateCommand(args: string[]): Run {
  parseOptions(args, {}, 0);
  // Opening the database applies what is missing (and logs it): here we report where the schema stands.
  return async (db) => {
    const applied = await db.prisma.$queryRaw<{ nome: string }[]>`SELECT nome FROM banchina_migrazioni ORDER BY nome`;
    const n = applied.length;
    console.log(
      `Schema del database aggiornato: ${n} ${n === 1 ? "migrazione applicata" : "migrazioni applicate"}, l'ultima è ${applied.at(-1)?.nome ?? "nessuna"}.`,
    );
  };
}

function verifyCommand(args: string[]): Run {
  parseOptions(args, {}, 0);
  return async (db, config) => {
    const report = await verifyLedger(db.prisma, { timeZone: config.SERVICE_TIME_ZONE });
    const c = report.controllati;
    console.log(
      `Controllati: ${c.movimenti} movimenti, ${c.giacenze} giacenze, ${c.lotti} lotti, ${c.righe_ordine} righe d'ordine, ${c.ordini} ordini, ${c.giacenze_ubicazioni} giacenze per ubicazione.`,
    );
    if (report.ok) {
      console.log("Nessuna differenza: tutto coincide con il registro dei movimenti.");
      return;
    }
    for (const d of report.differenze) console.log(`${d.tipo}\t${d.chiave}\tdal registro ${d.atteso}\tmantenuto ${d.trovato}`);
    throw new Failure(`${report.differenze.length} differenze tra il registro dei movimenti e i valori mantenuti.`);
  };
}

function command(name: string, args: string[]): Run {
  switch (name) {
    case "import":
      return importCommand(args);
    case "api-key":
      return apiKeyCommand(args);
    case "user":
      return userCommand(args);
    case "webhook":
      return webhookCommand(args);
    case "stampante":
      return printerCommand(args);
    case "demo":
      return demoCommand(args);
    case "migrate":
      return migrateCommand(args);
    case "verify":
      return verifyCommand(args);
    default:
      throw new UsageError(`comando sconosciuto: ${name}`);
  }
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined) {
    console.error(USAGE);
    return 2;
  }
  if (["help", "--help", "-h"].includes(name) || args.includes("--help") || args.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  try {
    const run = command(name, args);
    const config = getConfig();
    const db = await openDatabase(config, { mode: "attach", log: (m) => console.error(m) });
    try {
      await run(db, config);
    } finally {
      await db.close();
    }
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`Errore: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    if (e instanceof DomainError) {
      for (const d of e.dettagli ?? []) console.error(`${d.campo}: ${d.messaggio}`);
      console.error(e.message);
      return 1;
    }
    console.error(e instanceof Failure ? e.message : `Errore: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
