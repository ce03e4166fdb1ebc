import { Anchor, Badge, Card, Center, Group, Stack, Text, Title } from "@mantine/core";
import { redirect } from "next/navigation";
import { databaseStatus } from "@/server/modules/health/health.service";
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
  return (
    <Center mih="100vh" p="md" bg="gray.0">
      <Stack w="100%" maw={420} gap="lg">
        <Stack gap={0} ta="center">
          <Title order={1}>Banchina</Title>
          <Text c="dimmed">Magazzino e ricevimento merci</Text>
        </Stack>
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
