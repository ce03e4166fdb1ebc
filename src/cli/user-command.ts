import readline from "node:readline";
import { formatInstant } from "../server/lib/dates";
import { isRole, ROLES } from "../server/modules/auth/actor";
import { passwordProblem } from "../server/modules/auth/passwords";
import { USERNAME_PATTERN, normaliseUsername } from "../server/modules/auth/sessions.service";
import { createUser, listUsers } from "../server/modules/users/users.service";
import { Failure, parseOptions, UsageError, type Run } from "./command";

/** The password typed at a terminal (not echoed), or the first line of what was piped in. */
async function readPassword(): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY) {
    const rl = readline.createInterface({ input: stdin, output: process.stderr, terminal: true });
    process.stderr.write("Password: ");
    // Nothing the user types is echoed.
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
    const line = await new Promise<string>((resolve) => rl.question("", resolve));
    rl.close();
    process.stderr.write("\n");
    return line;
  }
  let text = "";
  for await (const chunk of stdin) text += chunk;
  return text.split(/\r?\n/)[0] ?? "";
}

function create(args: string[]): Run {
  const { values } = parseOptions(args, { username: { type: "string" }, role: { type: "string" }, password: { type: "string" } }, 0);
  const username = normaliseUsername(values.username ?? "");
  if (!username) throw new UsageError("indicare il nome utente: --username NOME");
  if (!USERNAME_PATTERN.test(username)) {
    throw new UsageError(`nome utente '${username}' non valido: da 3 a 64 caratteri tra lettere, cifre, '.', '-' e '_'`);
  }
  const ruolo = values.role ?? "";
  if (!isRole(ruolo)) throw new UsageError(`indicare il ruolo: --role ${ROLES.join("|")}${ruolo ? ` (ricevuto '${ruolo}')` : ""}`);
  return async (db) => {
    const password = values.password ?? (await readPassword());
    if (password === "") throw new Failure("Password mancante: passarla su stdin o con --password.");
    const problem = await passwordProblem(password, username);
    if (problem) throw new Failure(`Password non accettata: ${problem}.`);
    const user = await createUser(db.prisma, { username, password, ruolo }, "riga_di_comando");
    console.log(`Utente '${user.username}' creato (id ${user.id}, ruolo ${user.ruolo}): può accedere all'interfaccia.`);
  };
}

function list(args: string[]): Run {
  parseOptions(args, {}, 0);
  return async (db, config) => {
    const users = await listUsers(db.prisma);
    if (users.length === 0) {
      console.log("Nessun utente. Crearne uno con: user create --username NOME --role amministratore");
      return;
    }
    const rows = [
      ["id", "username", "ruolo", "attivo", "creato"],
      ...users.map((u) => [
        String(u.id),
        u.username,
        u.ruolo,
        u.attivo ? "sì" : "no",
        formatInstant(config.SERVICE_TIME_ZONE, new Date(u.creato_il)).slice(0, 16).replace("T", " "),
      ]),
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    console.log(
      rows
        .map((r) =>
          r
            .map((c, i) => c.padEnd(widths[i]!))
            .join("  ")
            .trimEnd(),
        )
        .join("\n"),
    );
  };
}

export function userCommand(args: string[]): Run {
  const [sub, ...rest] = args;
  if (sub === "create") return create(rest);
  if (sub === "list") return list(rest);
  throw new UsageError(sub === undefined ? "manca il sottocomando: user create|list" : `sottocomando sconosciuto: user ${sub}`);
}
