import { Alert, Anchor, Badge, Card, Center, Code, Group, Stack, Text, Title } from "@mantine/core";
import { redirect } from "next/navigation";
import { getDb } from "@/server/db/client";
import { databaseStatus } from "@/server/modules/health/health.service";
import { listUsers } from "@/server/modules/users/users.service";
import { safeNextPath } from "@/ui/next-path";
import { SignInForm } from "@/ui/screens/sign-in";
import { currentSession } from "@/ui/server/session";

export const dynamic = "force-dynamic";
export const metadata = { title: "Accesso" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // Only a known screen of this site: an outside address in `dopo` must not turn sign-in into a redirector.
  const next = safeNextPath((await searchParams).dopo);
  // With the database down the page still renders, to say so.
  if (await currentSession().catch(() => null)) redirect(next);
  const { ok } = await databaseStatus();
  // A database with no active user yet (DEMO_DATA=false, first start): nobody can sign in, so say how to begin.
  const noUsers = ok && (await listUsers(getDb()).catch(() => [{ attivo: true }])).every((u) => !u.attivo);
  return (
    <Center mih="100vh" p="md" bg="gray.0">
      <Stack w="100%" maw={420} gap="lg">
        <Stack gap={0} ta="center">
          <Title order={1}>Banchina</Title>
          <Text c="dimmed">Magazzino e ricevimento merci</Text>
        </Stack>
        {noUsers && (
          <Alert color="blue" variant="light" title="Nessun utente ancora" data-testid="primo-utente">
            <Text size="sm">
              Il servizio è partito senza dati dimostrativi e nessuno può ancora accedere. Creare il primo amministratore dalla riga di
              comando, nella cartella del servizio; poi scrivere la password e premere Invio:
            </Text>
            <Code block mt="xs" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
              npm run -s cli -- user create --username admin --role amministratore
            </Code>
            <Text size="sm" mt="xs">
              Poi accedere qui con quel nome e quella password, e creare gli altri utenti dalla pagina Utenti.
            </Text>
          </Alert>
        )}
        <Card withBorder shadow="sm" padding="lg" radius="md">
          <SignInForm next={next} />
        </Card>
        <Group justify="center" gap="xs">
          <Badge color={ok ? "green" : "red"} variant="light" size="lg">
            {ok ? "Servizio attivo" : "Servizio non disponibile"}
          </Badge>
          <Text size="sm" c="dimmed">
            {ok ? "Il database risponde." : "Il database non risponde: controllare il registro del servizio."}
          </Text>
        </Group>
        <Text size="sm" c="dimmed" ta="center">
          Per chi integra: <Anchor href="/api/docs">documentazione dell&apos;API</Anchor> ·{" "}
          <Anchor href="/api/v1/openapi.json">documento OpenAPI</Anchor> · <Anchor href="/api/health">stato del servizio</Anchor>
        </Text>
      </Stack>
    </Center>
  );
}
