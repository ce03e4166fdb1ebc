"use client";
import { Alert, Button, PasswordInput, Stack, TextInput } from "@mantine/core";
import { useMounted } from "@mantine/hooks";
import { useState } from "react";
import { describeError } from "../errors";
import { safeNextPath } from "../next-path";
import { makeTrpcClient } from "../providers";

/**
 * The page is drawn from the server before its script runs (seconds on a slow handheld). Until then the form
 * must not submit itself: the browser would send it as a GET, the password in the address. So "Accedi" is
 * disabled until the script runs (Enter then does nothing), and the fields are left to the browser, so what
 * was typed meanwhile stays and is what is sent.
 */
export function SignInForm({ next }: { next: string }) {
  const ready = useMounted();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      await makeTrpcClient(undefined).session.signIn.mutate({
        username: String(form.get("username") ?? ""),
        password: String(form.get("password") ?? ""),
      });
      // A full load: the server renders the next page with the new session cookie.
      window.location.assign(safeNextPath(next));
    } catch (err) {
      setError(describeError(err).messaggio);
      setBusy(false);
    }
  }

  return (
    <form method="post" onSubmit={submit}>
      <Stack>
        <TextInput
          label="Nome utente"
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          autoCorrect="off"
          spellCheck={false}
          required
          autoFocus
        />
        <PasswordInput label="Password" name="password" autoComplete="current-password" required />
        {error && (
          <Alert color="red" variant="filled" role="alert" data-testid="errore-accesso">
            {error}
          </Alert>
        )}
        <Button type="submit" size="lg" loading={busy} disabled={!ready} fullWidth>
          Accedi
        </Button>
      </Stack>
    </form>
  );
}
