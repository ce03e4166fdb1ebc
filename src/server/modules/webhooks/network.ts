import dns from "node:dns";
import net from "node:net";
import { DomainError } from "../../lib/errors";

/**
 * Where a webhook may be sent (docs/api.md section 10): `http` or `https`, and, as in GitLab, never to an address
 * in a private, loopback or link-local range (nor the other ranges no public receiver lives in: unspecified,
 * shared/CGNAT, benchmarking, multicast, reserved) unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, which an
 * on-premises installation sets to reach its ERP on the LAN. The check is made at creation and again at
 * every delivery, on the addresses the name resolves to at that moment, and the connection goes to the
 * address that was checked (`checkedLookup`), so a name cannot be re-pointed between the check and the
 * connection (DNS rebinding).
 */

const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(prefix, bits, "ipv4");
}
for (const [prefix, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(prefix, bits, "ipv6");
}

/** Whether an address lies in a range a webhook may not reach (IPv4-mapped IPv6 judged as its IPv4). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, "ipv4");
  const family = net.isIP(address);
  if (family === 0) return true; // not an address: never connect to it
  return blocked.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The URL of an endpoint, or why it cannot be one (a person reads it: campo `url`). */
export function parseEndpointUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DomainError(
      "richiesta_non_valida",
      `'${raw}' non è un indirizzo valido: scrivere per esempio https://erp.example.com/webhook.`,
      {
        campo: "url",
      },
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new DomainError("richiesta_non_valida", `L'indirizzo deve iniziare con http:// o https://, non con ${url.protocol}//.`, {
      campo: "url",
    });
  }
  if (url.username || url.password) {
    throw new DomainError("richiesta_non_valida", "L'indirizzo non può contenere nome utente e password: le consegne sono firmate.", {
      campo: "url",
    });
  }
  return url;
}

/** The host of a URL as `dns.lookup` and `net.isIP` take it (IPv6 literals without their brackets). */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

export class PrivateNetworkError extends Error {
  constructor(host: string, address: string) {
    super(
      `${host} corrisponde a ${address}, un indirizzo di rete privata, di loopback o link-local: ` +
        "le consegne vi sono rifiutate (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true le consente, per un ERP nella rete locale).",
    );
  }
}

/** Every address the URL's host stands for now; refuses the URL when one is out of bounds. */
export async function assertPublicUrl(url: URL, allowPrivate: boolean): Promise<void> {
  const host = hostOf(url);
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await dns.promises.lookup(host, { all: true })).map((a) => a.address);
    } catch {
      throw new DomainError("richiesta_non_valida", `Il nome ${host} non si risolve in alcun indirizzo: controllare l'indirizzo.`, {
        campo: "url",
      });
    }
  }
  if (allowPrivate) return;
  const bad = addresses.find(isPrivateAddress);
  if (bad !== undefined) throw new DomainError("richiesta_non_valida", new PrivateNetworkError(host, bad).message, { campo: "url" });
}

/**
 * A `lookup` for http.request that resolves the name, refuses any private answer (unless allowed) and hands
 * the connection the very address it checked. IP literals never reach a lookup: `assertDeliverable` checks them.
 */
export function checkedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as dns.LookupAddress[];
      const bad = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (bad) return callback(new PrivateNetworkError(hostname, bad.address), "", 0);
      if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const a = list[0]!;
      callback(null, a.address, a.family);
    });
  };
}

/** The delivery-time check of an IP-literal host (a name is checked by `checkedLookup` as it connects). */
export function assertDeliverable(url: URL, allowPrivate: boolean): void {
  const host = hostOf(url);
  if (!allowPrivate && net.isIP(host) && isPrivateAddress(host)) throw new PrivateNetworkError(host, host);
}
