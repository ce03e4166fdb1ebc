import type { Metadata } from "next";
import { ApiReference } from "./api-reference";

export const metadata: Metadata = { title: "Documentazione API" };

export default function ApiDocsPage() {
  return (
    <main style={{ maxWidth: 1200, margin: "0 auto", padding: "24px 16px" }}>
      <h1 style={{ margin: "0 20px", fontSize: 28 }}>Banchina — documentazione dell&apos;API</h1>
      <p style={{ margin: "8px 20px 0", color: "#52606d" }}>
        Autenticazione con <code>Authorization: Bearer &lt;chiave API&gt;</code>. Il documento OpenAPI è in{" "}
        <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.
      </p>
      <ApiReference url="/api/v1/openapi.json" />
    </main>
  );
}
