"use client";
import { Alert, Button, PasswordInput, Stack, TextInput } from "@mantine/core";
import { useState } from "react";
import { describeError } from "../errors";
import { safeNextPath } from "../next-path";
import { makeTrpcClient } from "../providers";

export function SignInForm({ next }: { next: string }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await makeTrpcClient(undefined).session.signIn.mutate({ username, password });
      // A full load: the server renders the next page with the new session cookie.
      window.location.assign(safeNextPath(next));
    } catch (err) {
      setError(describeError(err).messaggio);
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit}>
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
          value={username}
          onChange={(e) => setUsername(e.currentTarget.value)}
        />
        <PasswordInput
          label="Password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
        />
        {error && (
          <Alert color="red" variant="filled" role="alert" data-testid="errore-accesso">
            {error}
          </Alert>
        )}
        <Button type="submit" size="lg" loading={busy} fullWidth>
          Accedi
        </Button>
      </Stack>
    </form>
  );
}
