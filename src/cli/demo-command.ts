import path from "node:path";
import { removeDemo } from "../server/modules/demo/demo.service";
import { parseOptions, UsageError, type Run } from "./command";

/** `demo remove`: the demo's users, its API key and the files under DATA_DIR that hold their credentials. */
function remove(args: string[]): Run {
  parseOptions(args, {}, 0);
  return async (db, config) => {
    const r = await removeDemo(db.prisma, { dataDir: path.resolve(config.DATA_DIR) });
    const said: string[] = [];
    if (r.utentiRimossi.length > 0) said.push(`Utenti dimostrativi rimossi: ${r.utentiRimossi.join(", ")}.`);
    if (r.utentiDisattivati.length > 0) {
      said.push(
        `Utenti dimostrativi disattivati (hanno scritto operazioni, che ne conservano il nome): ${r.utentiDisattivati.join(", ")}.`,
      );
    }
    if (r.chiaveRevocata) said.push(`Chiave API dimostrativa '${r.chiaveRevocata}' revocata.`);
    for (const file of r.fileRimossi) said.push(`File rimosso: ${file}`);
    console.log(said.length > 0 ? said.join("\n") : "Nessun accesso dimostrativo da rimuovere.");
  };
}

export function demoCommand(args: string[]): Run {
  const [sub, ...rest] = args;
  if (sub === "remove") return remove(rest);
  throw new UsageError(sub === undefined ? "manca il sottocomando: demo remove" : `sottocomando sconosciuto: demo ${sub}`);
}
