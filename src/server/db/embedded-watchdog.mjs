// Stops the embedded PostgreSQL when the process that started it dies, even by SIGKILL: the parent
// holds the other end of fd 3, and the kernel closes it when the parent goes, however it goes.
// Plain JavaScript so it runs with bare node, detached from the parent's process group.
import fs from "node:fs";

const postmasterPid = Number(process.argv[2]);
const stream = fs.createReadStream(null, { fd: 3 });

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stopPostgres() {
  if (!alive(postmasterPid)) process.exit(0);
  try {
    process.kill(postmasterPid, "SIGINT"); // fast shutdown: rolls back open transactions, flushes, exits
  } catch {
    process.exit(0);
  }
  for (let i = 0; i < 300 && alive(postmasterPid); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive(postmasterPid)) process.kill(postmasterPid, "SIGQUIT");
  process.exit(0);
}

process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});
process.on("SIGHUP", () => {});
stream.on("data", () => {});
stream.on("end", stopPostgres);
stream.on("error", stopPostgres);
