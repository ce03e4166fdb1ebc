import { getDb } from "@/server/db/client";

// The status is read at every request, never frozen at build time.
export const dynamic = "force-dynamic";

async function databaseAnswers(): Promise<boolean> {
  try {
    await getDb().$queryRaw`SELECT 1`;
    return true;
  } catch {
    return false;
  }
}

const LINKS = [
  { href: "/api/docs", label: "Documentazione dell'API", note: "tutti gli endpoint di /api/v1, con esempi" },
  { href: "/api/v1/openapi.json", label: "Documento OpenAPI", note: "per generare client e integrazioni" },
  { href: "/api/health", label: "Stato del servizio", note: "per il monitoraggio, senza autenticazione" },
];

export default async function HomePage() {
  const ok = await databaseAnswers();
  return (
    <main style={{ maxWidth: 640, margin: "0 auto", padding: "48px 24px" }}>
      <h1 style={{ margin: 0, fontSize: 32 }}>Banchina</h1>
      <p style={{ marginTop: 4, color: "#52606d" }}>Magazzino e ricevimento merci</p>

      <section
        aria-live="polite"
        style={{
          margin: "32px 0",
          padding: "16px 20px",
          borderRadius: 8,
          border: `1px solid ${ok ? "#8bd3a5" : "#f0a3a3"}`,
          background: ok ? "#effaf3" : "#fdf0f0",
        }}
      >
        <strong>{ok ? "Servizio attivo" : "Servizio non disponibile"}</strong>
        <div style={{ marginTop: 4 }}>
          {ok ? "Il database risponde." : "Il database non risponde: controllare il registro del servizio e riprovare."}
        </div>
      </section>

      <h2 style={{ fontSize: 18 }}>Per chi integra</h2>
      <ul style={{ paddingLeft: 20, lineHeight: 1.8 }}>
        {LINKS.map((l) => (
          <li key={l.href}>
            <a href={l.href}>{l.label}</a> <span style={{ color: "#52606d" }}>— {l.note}</span>
          </li>
        ))}
      </ul>
    </main>
  );
}
