"use client";
import { AppShell, Burger, Group, NavLink, ScrollArea, Stack, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { NAV } from "./nav";
import { roleAtLeast, SessionProvider, type UiUser } from "./session-context";
import { TrpcProviders } from "./providers";
import { OfflineBanner } from "./offline/offline-banner";
import { OfflineSupport } from "./offline/offline-support";
import { SignOutButton } from "./offline/sign-out";

const ROLE_COLOR = { operatore: "gray.7", responsabile: "teal.8", amministratore: "grape.8" } as const;

/**
 * Who is signed in, at every width: a handheld passes from hand to hand, and the next person must see whose
 * session is open before scanning into it. Name over role, in the room the header has left: a name too long
 * for a handheld's header is cut short with an ellipsis (whole in its title) rather than pushing Esci away.
 */
function SignedIn({ user }: { user: UiUser }) {
  return (
    <Stack gap={0} miw={0} maw={360} style={{ lineHeight: 1.2 }} data-testid="utente">
      <Text size="sm" fw={600} lh="inherit" truncate="end" title={user.username} data-testid="utente-corrente">
        {user.username}
      </Text>
      <Text size="xs" fw={600} lh="inherit" c={ROLE_COLOR[user.ruolo]} data-testid="ruolo-corrente">
        {user.ruolo}
      </Text>
    </Stack>
  );
}

/** The header, the menu and the screen: for pages from the service (AppFrame) and for the offline shell. */
export function Frame({ user, children }: { user: UiUser; children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure(false);
  const pathname = usePathname();
  const items = NAV.filter((n) => roleAtLeast(user, n.role));
  const groups = [...new Set(items.map((i) => i.group))];
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 250, breakpoint: "md", collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header className="no-print">
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="xs">
          <Group gap="xs" wrap="nowrap" style={{ flexShrink: 0 }}>
            <Burger opened={opened} onClick={toggle} hiddenFrom="md" size="md" aria-label="Menu" />
            {/* Not on a handheld: its header is for who is signed in (the burger's menu leads home as well). */}
            <Text fw={800} size="xl" component={Link} href="/" visibleFrom="xs">
              Banchina
            </Text>
          </Group>
          <Group gap="xs" wrap="nowrap" miw={0}>
            <SignedIn user={user} />
            <SignOutButton user={user} />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" className="no-print" data-testid="menu">
        {/* The menu scrolls on its own when it is taller than the window (an administrator's, on a short screen). */}
        <AppShell.Section grow component={ScrollArea} type="auto" offsetScrollbars scrollbars="y">
          <Stack gap={2}>
            {groups.map((g) => (
              <Stack key={g} gap={0}>
                <Text size="xs" c="dimmed" tt="uppercase" fw={700} px="sm" pt={6} pb={2}>
                  {g}
                </Text>
                {items
                  .filter((i) => i.group === g)
                  .map((i) => (
                    <NavLink
                      key={i.href}
                      component={Link}
                      href={i.href}
                      label={i.label}
                      active={pathname === i.href}
                      onClick={close}
                      className="menu-link"
                      styles={{ root: { borderRadius: 8 }, label: { fontSize: "1.05rem" } }}
                    />
                  ))}
              </Stack>
            ))}
          </Stack>
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <OfflineBanner />
        {children}
      </AppShell.Main>
    </AppShell>
  );
}

export function AppFrame({ user, csrf, children }: { user: UiUser; csrf: string; children: ReactNode }) {
  return (
    <TrpcProviders csrf={csrf}>
      <SessionProvider user={user}>
        <OfflineSupport user={user} />
        <Frame user={user}>{children}</Frame>
      </SessionProvider>
    </TrpcProviders>
  );
}
