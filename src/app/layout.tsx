import "@mantine/core/styles.css";
import "@mantine/dates/styles.css";
import "@mantine/notifications/styles.css";
import "./globals.css";
import { ColorSchemeScript, MantineProvider, mantineHtmlProps } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { getConfig } from "@/server/config";
import { NONCE_HEADER } from "@/server/http/security-headers";
import { DisplayTimeZone } from "@/ui/display-time-zone";
import { theme } from "@/ui/theme";

export const metadata: Metadata = {
  title: { default: "Banchina", template: "%s · Banchina" },
  description: "Magazzino e ricevimento merci",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The request's CSP nonce (src/server/http/security-headers.ts): an inline script runs only with it.
  // Reading it renders every page per request, which a nonce needs anyway.
  const nonce = (await headers()).get(NONCE_HEADER) ?? undefined;
  return (
    <html lang="it" {...mantineHtmlProps}>
      <head>
        <ColorSchemeScript defaultColorScheme="light" nonce={nonce} />
      </head>
      {/* System fonts only: the service must work without internet access. */}
      <body>
        <DisplayTimeZone zone={getConfig().SERVICE_TIME_ZONE} />
        <MantineProvider theme={theme} defaultColorScheme="light">
          <Notifications position="top-center" />
          {children}
        </MantineProvider>
      </body>
    </html>
  );
}
