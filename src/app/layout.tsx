import type { Metadata } from "next";
import type { ReactNode } from "react";

export const metadata: Metadata = {
  title: { default: "Banchina", template: "%s · Banchina" },
  description: "Magazzino e ricevimento merci",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="it">
      {/* System fonts only: the service must work without internet access. */}
      <body style={{ margin: 0, fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", color: "#1f2933" }}>
        {children}
      </body>
    </html>
  );
}
