import { randomBytes, randomInt } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PrismaClient } from "../../db/client";
import { execute, rows } from "../../db/sql";
import { inPrismaTransaction } from "../../db/transaction";
import { businessDate, dateFromIso, formatDate } from "../../lib/dates";
import { DomainError } from "../../lib/errors";
import { restLink } from "../../lib/links";
import { recordAdminAction } from "../audit/audit.service";
import { ROLES, type Actor, type Role } from "../auth/actor";
import { createApiKey, hashApiKey } from "../auth/api-keys.service";
import { hashPassword, verifyPassword } from "../auth/passwords";
import { importInTransaction } from "../import/import.service";
import { upsertArticleRows } from "../catalogue/master-data-upsert.service";
import { writeMovements } from "../movements/movements.service";
import { createUser, lockUsers } from "../users/users.service";
import { seedDemoNotice } from "./demo-notice";
import { seedDemoActivity } from "./demo-activity";
import demoData from "./demo-data.json";
import * as q from "./demo.queries";

/**
 * The demo data set loaded at first start into an empty database (docs/api.md section 7), so that a new
 * installation can be tried at once: master data through the ordinary import, an API key, and some
 * opening stock written through the ordinary movement service, all in one transaction.
 */

const KEY_FILE = "chiave-demo.txt";
const USERS_FILE = "utenti-demo.txt";

/** One user per role, named after it. */
interface DemoUser {
  username: string;
  password: string;
  ruolo: Role;
}

/** Easy to read aloud and to type on a handheld: lower-case letters and digits, no 0/o or 1/l. */
function demoPassword(): string {
  const alphabet = "abcdefghijkmnpqrstuvwxyz23456789";
  return Array.from({ length: 12 }, () => alphabet[randomInt(alphabet.length)]).join("");
}

function userLines(users: DemoUser[], usersFile: string): string[] {
  const port = process.env.PORT ?? "3000";
  return [
    `Utenti dimostrativi dell'interfaccia (http://localhost:${port}), nome utente / password:`,
    ...users.map((u) => `  ${u.ruolo.padEnd(15)} ${u.username} / ${u.password}`),
    `(salvati in ${usersFile})`,
  ];
}

/** The file keeps one user a line: username, password, role, tab-separated. */
function readUsersFile(usersFile: string): DemoUser[] {
  let text: string;
  try {
    text = fs.readFileSync(usersFile, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .map((l) => l.split("\t"))
    .filter((f): f is [string, string, Role] => f.length === 3 && (ROLES as readonly string[]).includes(f[2]!))
    .map(([username, password, ruolo]) => ({ username, password, ruolo }));
}

function writePrivate(file: string, text: string): void {
  fs.writeFileSync(file, text, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

const CAUSALE = "Giacenza iniziale demo";

/**
 * Opening stock per warehouse; lots expire this many days after the first start. In PD-LOGISTICA, which keeps
 * stock by location, each row names its location: most already put away on the shelves, some still in the
 * receiving bay (GET /da-stoccare: one of an article already on a shelf, one of a lot already on a shelf, one with
 * a preferred location), and a lot in quarantine.
 */
const OPENING_STOCK: Record<string, { codice: string; quantita: number; lotto?: string; scadeTraGiorni?: number; ubicazione?: string }[]> =
  {
    "BO-CENTRALE": [
      { codice: "VITE-TE-M6X40", quantita: 12 },
      { codice: "TASS-NYL-8", quantita: 20 },
      { codice: "SILIC-TRASP-280", quantita: 18 },
      { codice: "NASTRO-AM-50", quantita: 25 },
      { codice: "GUANTI-NITRILE-M", quantita: 15 },
      { codice: "GUANTI-NITRILE-L", quantita: 20 },
      { codice: "GUANTI-NITRILE-XL", quantita: 6 },
      { codice: "OLIO-EVO-1L", quantita: 40, lotto: "L2611A", scadeTraGiorni: 365 },
      { codice: "SPAGHETTI-500", quantita: 150, lotto: "P2610-14", scadeTraGiorni: 400 },
      { codice: "CAFFE-GRANI-1KG", quantita: 24, lotto: "CG-4471", scadeTraGiorni: 240 },
      { codice: "PELATI-400", quantita: 96, lotto: "PL26-118", scadeTraGiorni: 700 },
    ],
    "VR-DEPOSITO": [
      { codice: "SGRASS-750", quantita: 48 },
      { codice: "DETERG-PAV-5L", quantita: 12 },
      { codice: "GUANTI-NITRILE-L", quantita: 10 },
      { codice: "ALCOL-DEN-1L", quantita: 30, lotto: "AD-2609", scadeTraGiorni: 900 },
      { codice: "IPOCLORITO-5L", quantita: 20, lotto: "IP-2611", scadeTraGiorni: 180 },
      // Close to expiry on purpose: the lot lists show it first.
      { codice: "OLIO-EVO-1L", quantita: 12, lotto: "L2608C", scadeTraGiorni: 30 },
    ],
    "PD-LOGISTICA": [
      { codice: "VITE-TE-M6X40", quantita: 30, ubicazione: "A-01-01" },
      { codice: "TASS-NYL-8", quantita: 60, ubicazione: "A-01-02" },
      { codice: "NASTRO-AM-50", quantita: 24, ubicazione: "A-02-02" },
      { codice: "NASTRO-AM-50", quantita: 12, ubicazione: "RIC-01" },
      { codice: "GUANTI-NITRILE-M", quantita: 20, ubicazione: "A-02-03" },
      { codice: "SILIC-TRASP-280", quantita: 24, ubicazione: "RIC-01" },
      { codice: "OLIO-EVO-1L", quantita: 30, lotto: "L2611A", scadeTraGiorni: 365, ubicazione: "A-03-01" },
      { codice: "OLIO-EVO-1L", quantita: 10, lotto: "L2611A", scadeTraGiorni: 365, ubicazione: "RIC-01" },
      { codice: "PELATI-400", quantita: 48, lotto: "PL26-118", scadeTraGiorni: 700, ubicazione: "Q-01" },
    ],
  };

/** Where putaway proposes each article's goods in PD-LOGISTICA (POST /articoli, `ubicazioni_preferite`). */
const PREFERRED: Record<string, string> = {
  "VITE-TE-M6X40": "A-01-01",
  "TASS-NYL-8": "A-01-02",
  "SILIC-TRASP-280": "A-02-01",
  "NASTRO-AM-50": "A-02-02",
  "CAFFE-GRANI-1KG": "A-03-02",
};

const DAY_MS = 86_400_000;
const addDays = (iso: string, days: number) => formatDate(new Date(dateFromIso(iso).getTime() + days * DAY_MS));

/** The file's orders keep their spacing but move so that the latest is yesterday: "open orders of recent days". */
function withRecentOrders(today: string) {
  // biome-ignore lint/complexity/useMathMinMax: dates as YYYY-MM-DD text, compared as strings; Math.max would give NaN.
  const latest = demoData.ordini.reduce((max, o) => (o.data > max ? o.data : max), "0000-00-00");
  const shift = Math.round((dateFromIso(today).getTime() - dateFromIso(latest).getTime()) / DAY_MS) - 1;
  return { ...demoData, ordini: demoData.ordini.map((o) => ({ ...o, data: addDays(o.data, shift) })) };
}

function tryLines(keyFile: string, key: string): string[] {
  const port = process.env.PORT ?? "3000";
  return [
    "Per provarla:",
    `  curl -H "Authorization: Bearer ${key}" "http://localhost:${port}${restLink("/movimenti?limite=5")}"`,
    `(la chiave è salvata in ${keyFile})`,
  ];
}

export async function seedDemoIfEmpty(
  db: PrismaClient,
  opts: { dataDir: string; timeZone: string; log: (m: string) => void },
): Promise<{ created: boolean; lines: string[] }> {
  const keyFile = path.join(opts.dataDir, KEY_FILE);
  const usersFile = path.join(opts.dataDir, USERS_FILE);
  const seeded = await inPrismaTransaction(
    db,
    async (tx) => {
      await execute(tx, q.lockDemoSeeding());
      // Checked under the lock: an instance that seeded first has committed by now.
      if (await tx.magazzino.findFirst({ select: { id: true } })) return null;
      opts.log("Database vuoto: carico i dati dimostrativi …");
      const today = businessDate(opts.timeZone);
      const { ids } = await importInTransaction(tx, withRecentOrders(today), { timeZone: opts.timeZone });
      const key = await createApiKey(tx, { nome: "demo", permessi: ["scrittura"] });
      const users: DemoUser[] = [];
      for (const ruolo of ROLES) {
        const user = { username: ruolo, password: demoPassword(), ruolo };
        await createUser(tx, user);
        users.push(user);
      }
      const actor: Actor = { kind: "chiave", id: key.id, nome: key.nome, permessi: key.permessi };
      for (const [magazzino, righe] of Object.entries(OPENING_STOCK)) {
        const written = await writeMovements(
          tx,
          actor,
          {
            natura: "carico",
            magazzino: ids.magazzini[magazzino]!,
            causale: CAUSALE,
            righe: righe.map(({ codice, quantita, lotto, scadeTraGiorni, ubicazione }) => ({
              codice,
              quantita,
              lotto,
              scadenza: scadeTraGiorni === undefined ? undefined : addDays(today, scadeTraGiorni),
              ubicazione,
            })),
          },
          { timeZone: opts.timeZone, origine: "api" },
        );
        // The demo data is ours: a refused row is a bug in it, not something to start half-seeded with.
        if (written.rifiutate > 0) {
          throw new Error(`Dati dimostrativi incoerenti: ${JSON.stringify(written.righe.filter((r) => r.errore))}`);
        }
      }
      const preferred = await upsertArticleRows(
        tx,
        Object.entries(PREFERRED).map(([codice, ubicazione]) => ({
          codice,
          ubicazioni_preferite: [{ magazzino: "PD-LOGISTICA", ubicazione }],
        })),
      );
      if (preferred.rifiutati > 0)
        throw new Error(`Dati dimostrativi incoerenti: ${JSON.stringify(preferred.righe.filter((r) => r.errore))}`);
      await seedDemoActivity(tx, { actor, timeZone: opts.timeZone, ids, addDays: (days) => addDays(today, days) });
      await seedDemoNotice(tx);
      // Written while the seeding lock is held: an instance that waited on it reads the key file as soon as it
      // goes on (written after commit, it raced that read and printed no key). A failed write must not undo
      // the data: the key is shown below anyway, with the reason.
      let fileError: string | undefined;
      try {
        fs.mkdirSync(opts.dataDir, { recursive: true });
        writePrivate(keyFile, `${key.chiave}\n`);
        writePrivate(usersFile, users.map((u) => `${u.username}\t${u.password}\t${u.ruolo}\n`).join(""));
      } catch (e) {
        fileError = (e as Error).message;
      }
      return { key: key.chiave, ids, users, fileError };
    },
    { timeout: 120_000 },
  );

  // Passwords are printed at the first start only (logs keep what is printed); later starts warn instead (demoWarnings).
  if (!seeded) return { created: false, lines: await existingKeyLines(db, keyFile) };

  const n = (o: Record<string, number>) => Object.keys(o).length;
  return {
    created: true,
    lines: [
      `Dati dimostrativi caricati: ${n(seeded.ids.magazzini)} magazzini, ${n(seeded.ids.articoli)} articoli, ` +
        `${n(seeded.ids.fornitori)} fornitori, ${n(seeded.ids.ordini)} ordini d'acquisto (uno già ricevuto in parte), ` +
        `${n(seeded.ids.clienti)} clienti, 3 documenti di vendita; PD-LOGISTICA tiene la merce per ubicazione (scaffali A-01-01 …, ` +
        "baia RIC-01 con merce da stoccare, quarantena Q-01).",
      "Chiave API dimostrativa (lettura e scrittura), mostrata anche ai prossimi avvii:",
      `  ${seeded.key}`,
      ...tryLines(keyFile, seeded.key),
      ...userLines(seeded.users, usersFile),
      ...(seeded.fileError
        ? [`Attenzione: non è stato possibile salvare chiave e password in ${opts.dataDir} (${seeded.fileError}): annotarle ora.`]
        : []),
      "Le password sono mostrate solo ora: cambiarle dalla schermata Utenti, o togliere gli accessi dimostrativi con: npm run -s cli -- demo remove",
    ],
  };
}

/** The key saved at the first start, shown again while it still works. */
async function existingKeyLines(db: PrismaClient, keyFile: string): Promise<string[]> {
  let key: string;
  try {
    key = fs.readFileSync(keyFile, "utf8").trim();
  } catch {
    return [];
  }
  const row = await db.chiaveApi.findUnique({ where: { hash: hashApiKey(key) }, select: { revocata_il: true } });
  if (!row || row.revocata_il) {
    return [
      `La chiave dimostrativa salvata in ${keyFile} non è più valida (revocata, o di un altro database): crearne una con: npm run -s cli -- api-key create --name NOME --scopes lettura,scrittura`,
    ];
  }
  return ["Chiave API dimostrativa:", `  ${key}`, ...tryLines(keyFile, key)];
}

/** The demo users (saved at the first start) that their first password still opens. */
export async function demoUsersWithFirstPassword(db: PrismaClient, dataDir: string): Promise<string[]> {
  const still: string[] = [];
  for (const u of readUsersFile(path.join(dataDir, USERS_FILE))) {
    const row = await db.utente.findUnique({ where: { username: u.username }, select: { password_hash: true, attivo: true } });
    if (row?.attivo && (await verifyPassword(row.password_hash, u.password))) still.push(u.username);
  }
  return still;
}

/** Said at every start while a demo user keeps the password printed (and saved) at the first start. */
export function demoWarnings(unchanged: string[], dataDir: string): string[] {
  if (unchanged.length === 0) return [];
  return [
    `ATTENZIONE: gli utenti dimostrativi ${unchanged.join(", ")} hanno ancora la password iniziale, salvata in ${path.join(dataDir, USERS_FILE)}.`,
    "  Cambiarla dalla schermata Utenti, o rimuovere i dati di accesso dimostrativi con: npm run -s cli -- demo remove",
  ];
}

export interface DemoRemoval {
  utentiRimossi: string[];
  /** Demo users with a history (they wrote operations): kept for it, but deactivated and with an unusable password. */
  utentiDisattivati: string[];
  chiaveRevocata: string | null;
  fileRimossi: string[];
}

/**
 * `demo remove`: the demo's ways in go away (its users, its API key, the files under DATA_DIR holding
 * their passwords and the key); the data set stays. A demo user who wrote operations is deactivated
 * rather than deleted, so what it wrote keeps its author. Refused when it would leave no active
 * administrator.
 */
export async function removeDemo(db: PrismaClient, opts: { dataDir: string }): Promise<DemoRemoval> {
  const keyFile = path.join(opts.dataDir, KEY_FILE);
  const usersFile = path.join(opts.dataDir, USERS_FILE);
  // The users the demo created: those of its file; without the file, the role-named users it creates.
  const saved = readUsersFile(usersFile).map((u) => u.username);
  const usernames = saved.length > 0 ? saved : [...ROLES];
  let savedKey: string | undefined;
  try {
    savedKey = fs.readFileSync(keyFile, "utf8").trim();
  } catch {
    savedKey = undefined;
  }
  const removal = await inPrismaTransaction(db, async (tx) => {
    // The lock of the users' own writes: the last-administrator check holds to commit.
    await lockUsers(tx);
    const users = await tx.utente.findMany({ where: { username: { in: usernames } }, select: { id: true, username: true, attivo: true } });
    const ids = users.map((u) => u.id);
    const admins = await tx.utente.count({ where: { ruolo: "amministratore", attivo: true, id: { notIn: ids } } });
    if (admins === 0) {
      throw new DomainError(
        "ultimo_amministratore",
        "Rimuovere gli utenti dimostrativi lascerebbe senza amministratori: crearne uno prima con " +
          "npm run -s cli -- user create --username NOME --role amministratore",
      );
    }
    const authors = new Set((await rows(tx, q.usersWithOperations(ids))).map((r) => r.utente_id));
    const result: DemoRemoval = { utentiRimossi: [], utentiDisattivati: [], chiaveRevocata: null, fileRimossi: [] };
    for (const u of users) {
      await tx.sessione.deleteMany({ where: { utente_id: u.id } });
      if (authors.has(u.id)) {
        await tx.utente.update({
          where: { id: u.id },
          data: { attivo: false, password_hash: await hashPassword(randomBytes(32).toString("base64")) },
        });
        if (u.attivo) result.utentiDisattivati.push(u.username);
      } else {
        await tx.utente.delete({ where: { id: u.id } });
        result.utentiRimossi.push(u.username);
      }
    }
    // Revoked, not deleted: the demo's opening stock names the key as its author.
    const key = savedKey
      ? await tx.chiaveApi.findFirst({ where: { hash: hashApiKey(savedKey), revocata_il: null }, select: { id: true, nome: true } })
      : await tx.chiaveApi.findFirst({ where: { nome: "demo", revocata_il: null }, select: { id: true, nome: true } });
    if (key) {
      await tx.chiaveApi.update({ where: { id: key.id }, data: { revocata_il: new Date() } });
      result.chiaveRevocata = key.nome;
    }
    // The administrative log: the command line removed the demo (only `demo remove` calls this).
    const what = [
      result.utentiRimossi.length > 0 && `utenti rimossi: ${result.utentiRimossi.join(", ")}`,
      result.utentiDisattivati.length > 0 && `utenti disattivati: ${result.utentiDisattivati.join(", ")}`,
      result.chiaveRevocata && `chiave revocata: ${result.chiaveRevocata}`,
    ].filter(Boolean);
    await recordAdminAction(
      tx,
      "riga_di_comando",
      "demo.rimossa",
      { tipo: "demo", id: null, nome: "dati dimostrativi" },
      what.join("; ") || null,
    );
    return result;
  });
  // After commit: the files hold credentials that no longer open anything.
  for (const file of [usersFile, keyFile]) {
    if (fs.existsSync(file)) {
      fs.rmSync(file);
      removal.fileRimossi.push(file);
    }
  }
  return removal;
}
