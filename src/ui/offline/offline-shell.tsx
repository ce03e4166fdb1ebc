"use client";
import { Alert, Anchor, Box, Center, Loader, Stack, Text, Title } from "@mantine/core";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { describeError } from "../errors";
import { Frame } from "../app-frame";
import { NAV } from "../nav";
import { makeTrpcClient, TrpcProviders } from "../providers";
import { PutawayScreen } from "../screens/putaway";
import { ReceivingScreen } from "../screens/receiving";
import { ReceivingBySupplierScreen } from "../screens/receiving-by-supplier";
import { roleAtLeast, SessionProvider, type UiUser } from "../session-context";
import { readCurrentUser } from "./local-db";
import { useOnline } from "./network";

/**
 * The screens that open without the service, by path. Each opens for the roles the menu gives it (nav.ts),
 * as the service's openScreen would decide online.
 */
export const OFFLINE_SCREENS: Record<string, () => ReactNode> = {
  "/ricevimento": () => <ReceivingScreen />,
  "/ricevimento/fornitore": () => <ReceivingBySupplierScreen />,
  "/stoccaggio": () => <PutawayScreen />,
};

/** The screen for a path, if the user's role may open it offline. */
export function offlineScreenFor(path: string, user: UiUser): (() => ReactNode) | undefined {
  const screen = OFFLINE_SCREENS[path];
  const item = NAV.find((n) => n.href === path);
  return screen && item && roleAtLeast(user, item.role) ? screen : undefined;
}

function normalisedPath(pathname: string): string {
  return pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
}

/** A path with no offline screen for this user: what is there instead. */
function NotAvailable({ user }: { user: UiUser | undefined }) {
  const open = user ? Object.keys(OFFLINE_SCREENS).filter((p) => offlineScreenFor(p, user)) : [];
  return (
    <Stack maw={640} data-testid="non-disponibile-offline">
      <Title order={2}>Non disponibile offline</Title>
      <Alert color="orange" variant="light">
        {user
          ? "Questa schermata non è disponibile senza rete: si aprirà quando il palmare sarà di nuovo collegato al servizio."
          : "Su questo palmare nessun utente ha eseguito l'accesso: collegarsi alla rete e accedere."}
      </Alert>
      {open.length > 0 && (
        <Stack gap={4}>
          <Text size="sm">Schermate disponibili offline:</Text>
          {open.map((p) => (
            // A full navigation: the service worker answers it with this shell again.
            <Anchor key={p} href={p} size="lg">
              {NAV.find((n) => n.href === p)?.label ?? p}
            </Anchor>
          ))}
        </Stack>
      )}
    </Stack>
  );
}

/**
 * The shell holds no CSRF token, so writes need one from the service once it answers again: the session's,
 * if it is still this user's. Another user's session, or none, is the service's to sort out: the page is
 * loaded again from it (sign-in, or that user's screen), and nothing is sent under the wrong name.
 *
 * A write asked for while the token is being fetched waits for it rather than failing: the queue's pass
 * starts the moment the network returns, and a first write failed for want of a token would stay unsent
 * until the next pass, its row shown as "to verify".
 */
function useCsrfWhenOnline(user: UiUser | undefined): () => Promise<string | undefined> {
  const online = useOnline();
  const token = useRef<string | undefined>(undefined);
  const asking = useRef<Promise<string | undefined> | undefined>(undefined);
  const userRef = useRef(user);
  userRef.current = user;
  const [ask] = useState(() => (): Promise<string | undefined> => {
    const me = userRef.current;
    if (token.current || !me) return Promise.resolve(token.current);
    asking.current ??= makeTrpcClient(undefined)
      .session.me.query()
      .then(
        (answer) => {
          if (answer.utente.id === me.id) token.current = answer.csrf;
          else window.location.reload();
          return token.current;
        },
        (e: unknown) => {
          if (describeError(e).codice === "non_autenticato") window.location.reload();
          return undefined;
        },
      )
      .finally(() => {
        asking.current = undefined;
      });
    return asking.current;
  });
  useEffect(() => {
    if (online && user) void ask();
  }, [online, user, ask]);
  return ask;
}

/**
 * The app without the service: the service worker answers a navigation that failed with this page
 * (precached at /offline, with no user data in it). It reads who is signed in on the handheld from
 * IndexedDB and renders the screen of the address bar's path in the usual frame and providers.
 */
export function OfflineShell() {
  const [found, setFound] = useState<{ path: string; user: UiUser | undefined }>();
  const csrf = useCsrfWhenOnline(found?.user);
  useEffect(() => {
    const path = normalisedPath(window.location.pathname);
    const label = NAV.find((n) => n.href === path)?.label;
    if (label) document.title = `${label} · Banchina`;
    readCurrentUser()
      .then((user) => setFound({ path, user }))
      .catch(() => setFound({ path, user: undefined }));
  }, []);
  if (!found)
    return (
      <Center h="60vh">
        <Loader />
      </Center>
    );
  const { path, user } = found;
  const screen = user && offlineScreenFor(path, user);
  return (
    <div data-testid="guscio-offline">
      {user ? (
        <TrpcProviders csrf={csrf}>
          <SessionProvider user={user}>
            <Frame user={user}>{screen ? screen() : <NotAvailable user={user} />}</Frame>
          </SessionProvider>
        </TrpcProviders>
      ) : (
        <Box p="md">
          <NotAvailable user={undefined} />
        </Box>
      )}
    </div>
  );
}
