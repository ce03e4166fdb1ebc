"use client";
import { Alert, Button, Stack, Title } from "@mantine/core";
import Link from "next/link";
import type { Role } from "@/server/modules/auth/actor";

/** What a user sees on a screen above their role (answered 403; the procedures refuse it too). */
export function Forbidden({ role }: { role: Role | null }) {
  return (
    <Stack maw={640} data-testid="accesso-negato">
      <Title order={2}>Accesso non consentito</Title>
      <Alert color="red" variant="light" title="Permesso negato">
        Questa pagina non è consentita {role ? `al ruolo ${role}` : "a questo utente"}: le pagine che si possono aprire sono nel menu. Per
        un permesso in più, chiedere a un amministratore.
      </Alert>
      <Button component={Link} href="/" variant="light" w="fit-content">
        Torna alla pagina iniziale
      </Button>
    </Stack>
  );
}
