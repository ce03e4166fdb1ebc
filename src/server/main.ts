import http from "node:http";
import path from "node:path";
import { getConfig, type Config } from "./config";
import { setDb } from "./db/client";
import { openDatabase, type OpenDatabase } from "./db/runtime";
import { isHealthPath, serveHealth } from "./http/health";
import { isLabelDownloadPath, serveLabelDownload } from "./http/label-download";
import { isRestPath, serveNodeRest } from "./http/rest-handler";
import { isTrpcPath, serveNodeTrpc } from "./http/trpc-node";
import { NONCE_HEADER, securityHeadersFor } from "./http/security-headers";
import { isServiceWorkerPath, serveServiceWorker } from "./http/service-worker";
import { defaultNextDir, hasBuild, nextBuild } from "./next-build";
import { ensureServiceWorker } from "./service-worker-build";

import { demoUsersWithFirstPassword, demoWarnings, seedDemoIfEmpty } from "./modules/demo/demo.service";
import { startAuthCache, type RunningAuthCache } from "./modules/auth/auth-cache";
import { CLIENT_ADDRESS_HEADER, purgeExpiredSessions } from "./modules/auth/sessions.service";
import { purgeExpiredIdempotency } from "./modules/idempotency/idempotency.service";
import { startWebhookWorker, webhookSettings, type WebhookWorker } from "./modules/webhooks/worker";
import { startPrintWorker, type PrintWorker } from "./modules/printers/print-worker";
import { startExpiryWorker, type ExpiryWorker } from "./modules/reservations/expiry-worker";

/**
 * The service: the Next.js custom server (operator UI, /api/v1, /api/trpc) in front of PostgreSQL,
 * embedded under DATA_DIR unless DATABASE_URL is set. Started by `npm start`; owns the embedded
 * server and stops it on the way out, after the requests in flight have been answered.
 */

const dev = process.env.BANCHINA_DEV === "1";
const SHUTDOWN_GRACE_MS = 10_000;
const PURGE_EVERY_MS = 60 * 60 * 1000;
/**
 * How long an idle keep-alive connection is kept. Node's default (5 s) is shorter than what clients and
 * proxies hold theirs (nginx upstream and load balancers 60 s; undici 4 s plus its 1 s timer tick): a
 * request sent on a connection the server is closing at that moment fails with a reset, and a POST is
 * not retried by the client. Held longer than they hold it, the client always closes first.
 */
const KEEP_ALIVE_MS = 65_000;

const log = (m: string) => console.log(m);

/** A fresh clone has no build: `npm install && npm start` must work with no other step. */
async function buildIfMissing(dir: string): Promise<void> {
  const nextDir = defaultNextDir();
  if (dev || hasBuild(dir, nextDir)) return;
  log("Prima compilazione del servizio in corso (next build): circa un minuto, solo la prima volta …");
  await nextBuild(dir, nextDir, { inherit: true });
}

function clientAddressOf(req: http.IncomingMessage, trustProxy: boolean): string {
  const forwarded = req.headers["x-forwarded-for"];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
  return (trustProxy && first) || req.socket.remoteAddress || "sconosciuto";
}

function publicUrl(config: Config, port: number): string {
  const host = ["0.0.0.0", "::", ""].includes(config.HOST) ? "localhost" : config.HOST;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function listen(server: http.Server, config: Config): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(
        e.code === "EADDRINUSE" ? new Error(`la porta ${config.PORT} è già in uso su ${config.HOST}: liberarla o impostare PORT.`) : e,
      ),
    );
    server.listen(config.PORT, config.HOST, () => resolve((server.address() as { port: number }).port));
  });
}

/**
 * The service's output may close under it (the terminal that started it is gone, a `| tee` was killed):
 * every later write to it then fails with EPIPE. Unheard, Node turns each failure into an uncaught
 * exception, which Next's handler logs, to the same closed output, and so on: a loop that kept a core
 * busy on a service whose test runner had been killed. A log that cannot be written is dropped; the
 * service goes on serving.
 */
function dropLogsOnClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
}

async function main(): Promise<void> {
  dropLogsOnClosedOutput();
  let config: Config;
  try {
    config = getConfig();
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
  const dir = process.cwd();
  // As the operator set it, before the line below sets it for Next: a production install gets no demo by default.
  const production = process.env.NODE_ENV === "production";
  // Before Next and React load: they choose their production or development build from it.
  Object.assign(process.env, { NODE_ENV: dev ? "development" : "production", NEXT_TELEMETRY_DISABLED: "1" });

  let db: OpenDatabase | undefined;
  let app: { close(): Promise<void> } | undefined;
  let purgeTimer: NodeJS.Timeout | undefined;
  let webhooks: WebhookWorker | undefined;
  let printer: PrintWorker | undefined;
  let expiry: ExpiryWorker | undefined;
  let authCache: RunningAuthCache | undefined;
  const server = http.createServer({ keepAliveTimeout: KEEP_ALIVE_MS });

  let stopping: Promise<never> | undefined;
  const stop = (code: number) => (stopping ??= shutdown(code));
  async function shutdown(code: number): Promise<never> {
    clearInterval(purgeTimer);
    if (server.listening) {
      // close() refuses new connections, ends idle keep-alive ones and waits for the others.
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
      await Promise.race([drained, timeout]);
      server.closeAllConnections();
    }
    // A delivery in flight ends within its timeout; one cut short by the exit is made again later (at least once).
    await webhooks?.stop().catch((e: unknown) => console.error("Arresto delle consegne webhook non riuscito:", e));
    // A label being sent finishes (within its timeout); one claimed and cut short ends "esito incerto".
    await printer?.stop().catch((e: unknown) => console.error("Arresto della coda di stampa non riuscito:", e));
    // A sweep in flight finishes (its statements are short); the next instance, or this one restarted, sweeps the rest.
    await expiry?.stop().catch((e: unknown) => console.error("Arresto della scadenza delle prenotazioni non riuscito:", e));
    await app?.close().catch((e: unknown) => console.error("Chiusura di Next non riuscita:", e));
    await authCache?.stop().catch((e: unknown) => console.error("Arresto della cache dell'autenticazione non riuscito:", e));
    setDb(undefined);
    // Also stops the embedded PostgreSQL: it never outlives the service.
    await db?.close().catch((e: unknown) => console.error("Chiusura del database non riuscita:", e));
    process.exit(code);
  }

  // A signal during start-up is honoured between steps, so that a half-started PostgreSQL is stopped too.
  let started = false;
  let stopRequested = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopRequested) return;
      stopRequested = true;
      log(`Arresto in corso (${signal}): attendo la fine delle richieste in corso …`);
      if (started) void stop(0);
    });
  }

  try {
    await buildIfMissing(dir);
    // The handhelds' service worker belongs to the build it precaches; development has none.
    const serviceWorker = dev ? undefined : await ensureServiceWorker(dir, defaultNextDir());
    if (stopRequested) return stop(0);

    db = await openDatabase(config, { mode: "own", log });
    if (stopRequested) return stop(0);
    setDb(db.prisma);
    // Keys and sessions are read from the database until its listener listens (it does not hold up the start).
    if (config.AUTH_CACHE_TTL_SECONDS > 0)
      authCache = startAuthCache(db.prisma, db.directUrl, { ttlSeconds: config.AUTH_CACHE_TTL_SECONDS, log });
    log(
      db.embedded
        ? `Database: PostgreSQL incorporato in ${path.resolve(config.DATA_DIR)}`
        : db.directUrl === db.url
          ? "Database: il PostgreSQL di DATABASE_URL"
          : "Database: il pooler di DATABASE_URL (modalità transaction), il PostgreSQL di DATABASE_DIRECT_URL per migrazioni, LISTEN e webhook",
    );

    const dataDir = path.resolve(config.DATA_DIR);
    const loadDemo = config.DEMO_DATA === "true" || (config.DEMO_DATA === undefined && !production);
    const demo = loadDemo ? await seedDemoIfEmpty(db.prisma, { dataDir, timeZone: config.SERVICE_TIME_ZONE, log }) : undefined;
    const unchanged = await demoUsersWithFirstPassword(db.prisma, dataDir);
    if (production && unchanged.length > 0 && config.DEMO_DATA !== "true") {
      throw new Error(
        `NODE_ENV=production e gli utenti dimostrativi ${unchanged.join(", ")} hanno ancora la password iniziale: ` +
          "rimuoverli (npm run -s cli -- demo remove), cambiarne la password, o impostare DEMO_DATA=true per avviare comunque la dimostrazione.",
      );
    }
    const demoLines = [...(demo?.lines ?? []), ...(demo?.created ? [] : demoWarnings(unchanged, dataDir))];
    // Without the demo (DEMO_DATA=false, or a production install) nobody can sign in until a user exists.
    if ((await db.prisma.utente.count({ where: { attivo: true, ruolo: "amministratore" } })) === 0) {
      log(
        "Nessun amministratore attivo: crearne uno con `npm run -s cli -- user create --username NOME --role amministratore` " +
          "(la password si digita al prompt), poi accedere dalla pagina di accesso.",
      );
    }

    const prisma = db.prisma;
    const purge = () =>
      Promise.all([
        purgeExpiredIdempotency(prisma).catch((e: unknown) => console.error("Pulizia delle chiavi di idempotenza non riuscita:", e)),
        purgeExpiredSessions(prisma).catch((e: unknown) => console.error("Pulizia delle sessioni scadute non riuscita:", e)),
      ]);
    await purge();
    purgeTimer = setInterval(purge, PURGE_EVERY_MS).unref();

    type Handle = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
    let nextHandle: Promise<Handle> | undefined;
    const loadNext = (): Promise<Handle> =>
      (nextHandle ??= (async () => {
        const { default: next } = await import("next");
        const nextApp = next({ dev, dir, hostname: config.HOST, port: config.PORT, httpServer: server });
        app = nextApp;
        await nextApp.prepare();
        return nextApp.getRequestHandler();
      })().catch((e: unknown) => {
        // The next page tries again; the API never waited on it.
        nextHandle = undefined;
        throw e;
      }));
    // Next (the screens) loads at the first request for a page, not at start: an instance that serves only
    // the API never loads it. Loaded, it holds memory of its own, and on Node 20 its AsyncLocalStorage
    // puts hooks on every promise of the process, which the bench sees as CPU added to every API write.
    // Development loads it now, for its hot reloader.
    if (dev) await loadNext();
    const handle: Handle = (req, res) => loadNext().then((h) => h(req, res));
    server.on("request", (req, res) => {
      // The sign-in limits count attempts per address: the address is ours to say, never the client's.
      req.headers[CLIENT_ADDRESS_HEADER] = clientAddressOf(req, config.TRUST_PROXY === "true");
      // Security headers on every answer; a page's nonce reaches Next on the request, never from the client.
      const security = securityHeadersFor(req.url, { dev });
      for (const [name, value] of Object.entries(security.response)) res.setHeader(name, value);
      delete req.headers["content-security-policy"];
      delete req.headers["content-security-policy-report-only"];
      delete req.headers[NONCE_HEADER];
      if (security.requestCsp && security.nonce) {
        req.headers["content-security-policy"] = security.requestCsp;
        req.headers[NONCE_HEADER] = security.nonce;
      }
      // The API and the UI's procedures skip Next's router; pages go to Next.
      const served = isRestPath(req.url)
        ? serveNodeRest(req, res)
        : isHealthPath(req.url)
          ? serveHealth(req, res)
          : isLabelDownloadPath(req.url)
            ? serveLabelDownload(req, res)
            : !dev && isTrpcPath(req.url)
              ? serveNodeTrpc(req, res)
              : serviceWorker && isServiceWorkerPath(req.url)
                ? serveServiceWorker(req, res, serviceWorker)
                : handle(req, res);
      served.catch((e: unknown) => {
        console.error("Richiesta non gestita:", e);
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
    });
    // Headers or URL over Node's limit: the contract's body rather than a bare status line.
    server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
      if (!socket.writable) return socket.destroy();
      const tooLarge = err.code === "HPE_HEADER_OVERFLOW";
      const body = JSON.stringify(
        tooLarge
          ? { codice: "richiesta_troppo_grande", messaggio: "Indirizzo o intestazioni troppo lunghi: accorciare la richiesta." }
          : { codice: "json_non_valido", messaggio: "Richiesta HTTP non valida." },
      );
      socket.end(
        `HTTP/1.1 ${tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request"}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    if (stopRequested) return stop(0);

    const url = publicUrl(config, await listen(server, config));
    log("");
    log(`Banchina è pronta su ${url}`);
    log(`  Documentazione API: ${url}/api/docs`);
    log(`  Documento OpenAPI:  ${url}/api/v1/openapi.json`);
    for (const line of demoLines) log(line);
    log("Per fermare il servizio: Ctrl+C.");
    // Its endpoint locks are session advisory locks: on connections to PostgreSQL itself, never through a pooler.
    webhooks = startWebhookWorker(prisma, db.directUrl, webhookSettings(config), log);
    printer = startPrintWorker(prisma, {}, log);
    expiry = startExpiryWorker(prisma, { timeZone: config.SERVICE_TIME_ZONE }, log);
    started = true;
    if (stopRequested) return stop(0);
  } catch (e) {
    if (!stopRequested) console.error(`Avvio non riuscito: ${e instanceof Error ? e.message : String(e)}`);
    return stop(stopRequested ? 0 : 1);
  }
}

void main();
