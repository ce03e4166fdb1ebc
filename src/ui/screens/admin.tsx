"use client";
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Modal,
  PasswordInput,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { type UseFormReturnType, useForm } from "@mantine/form";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Role } from "@/server/modules/auth/actor";
import { describeError } from "../errors";
import { instant } from "../format";
import { useUser } from "../session-context";
import { DataTable } from "../data-table";
import { SecretShown } from "../secret-shown";
import { AdminLog } from "./admin-log";
import { useTRPC } from "../trpc";

const ROLE_OPTIONS = [
  { value: "operatore", label: "Operatore" },
  { value: "responsabile", label: "Responsabile" },
  { value: "amministratore", label: "Amministratore" },
];

/** A text field of a form: its value and change, nothing else (no error line under it, no touched tracking). */
function field<V>(form: UseFormReturnType<V>, path: string) {
  const { value, onChange } = form.getInputProps(path);
  return { value, onChange };
}

function fail(e: unknown) {
  notifications.show({ color: "red", title: "Operazione rifiutata", message: describeError(e).messaggio, autoClose: 8000 });
}

export function UsersScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useUser();
  const users = useQuery(trpc.users.list.queryOptions());
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.users.list.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.audit.list.pathKey() }),
    ]);
  const creatingUser = useMutation(trpc.users.create.mutationOptions());
  const updatingUser = useMutation(trpc.users.update.mutationOptions());
  const settingPassword = useMutation(trpc.users.setPassword.mutationOptions());
  const [creating, setCreating] = useState(false);
  const form = useForm<{ username: string; password: string; ruolo: Role }>({
    initialValues: { username: "", password: "", ruolo: "operatore" },
  });
  const [formError, setFormError] = useState<string | null>(null);
  const [passwordFor, setPasswordFor] = useState<{ id: number; username: string } | null>(null);
  const passwordForm = useForm({ initialValues: { password: "" } });

  async function create() {
    setFormError(null);
    try {
      const u = await creatingUser.mutateAsync(form.getValues());
      notifications.show({ color: "green", message: `Utente '${u.username}' creato (${u.ruolo}).` });
      setCreating(false);
      form.setValues({ username: "", password: "", ruolo: "operatore" });
      await refresh();
    } catch (e) {
      setFormError(describeError(e).messaggio);
    }
  }

  async function update(id: number, patch: { ruolo?: Role; attivo?: boolean }) {
    try {
      await updatingUser.mutateAsync({ id, ...patch });
      await refresh();
    } catch (e) {
      fail(e);
    }
  }

  async function savePassword() {
    if (!passwordFor) return;
    try {
      await settingPassword.mutateAsync({ id: passwordFor.id, password: passwordForm.getValues().password });
      notifications.show({
        color: "green",
        message: `Password di '${passwordFor.username}' cambiata: le sue sessioni aperte sono state chiuse.`,
      });
      setPasswordFor(null);
      passwordForm.setValues({ password: "" });
    } catch (e) {
      fail(e);
    }
  }

  return (
    <Stack gap="md" maw={1000}>
      <Group justify="space-between">
        <Title order={2}>Utenti</Title>
        <Button onClick={() => setCreating(true)} data-testid="nuovo-utente">
          Nuovo utente
        </Button>
      </Group>
      {users.error && <Alert color="red">{describeError(users.error).messaggio}</Alert>}
      <DataTable
        minWidth={760}
        striped
        verticalSpacing="sm"
        data-testid="tabella-utenti"
        columns={[
          { label: "Utente" },
          { label: "Ruolo", wide: true },
          { label: "Stato" },
          { label: "Creato" },
          { key: "azioni", wide: true },
        ]}
      >
        {(users.data?.utenti ?? []).map((u) => (
          <Table.Tr key={u.id} data-testid={`utente-${u.username}`}>
            <Table.Td fw={700}>
              {u.username}
              {u.id === me.id && (
                <Badge ml={6} size="xs" variant="light">
                  tu
                </Badge>
              )}
            </Table.Td>
            <Table.Td w={200}>
              <Select
                size="sm"
                maw={170}
                data={ROLE_OPTIONS}
                value={u.ruolo}
                allowDeselect={false}
                onChange={(v) => v && v !== u.ruolo && void update(u.id, { ruolo: v as Role })}
                aria-label={`Ruolo di ${u.username}`}
              />
            </Table.Td>
            <Table.Td>
              <Badge color={u.attivo ? "green" : "gray"}>{u.attivo ? "attivo" : "disattivato"}</Badge>
            </Table.Td>
            <Table.Td>{instant(u.creato_il)}</Table.Td>
            <Table.Td>
              <Group gap="xs" justify="flex-end" wrap="nowrap">
                <Button size="sm" variant="default" onClick={() => setPasswordFor({ id: u.id, username: u.username })}>
                  Password
                </Button>
                <Button
                  size="sm"
                  variant="light"
                  color={u.attivo ? "red" : "green"}
                  onClick={() => void update(u.id, { attivo: !u.attivo })}
                  disabled={u.id === me.id}
                >
                  {u.attivo ? "Disattiva" : "Riattiva"}
                </Button>
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <AdminLog />

      <Modal opened={creating} onClose={() => setCreating(false)} title="Nuovo utente" centered>
        <Stack>
          <TextInput
            label="Nome utente"
            description="3–64 caratteri: lettere minuscole, cifre, . - _"
            {...field(form, "username")}
            autoCapitalize="none"
            data-testid="campo-nuovo-username"
          />
          <PasswordInput
            label="Password"
            description="Almeno 12 caratteri, diversa dal nome utente e non tra le più comuni"
            {...field(form, "password")}
            data-testid="campo-nuova-password"
          />
          <Select
            label="Ruolo"
            data={ROLE_OPTIONS}
            value={form.getValues().ruolo}
            onChange={(v) => form.setFieldValue("ruolo", (v ?? "operatore") as Role)}
            allowDeselect={false}
          />
          {formError && <Alert color="red">{formError}</Alert>}
          <Button onClick={() => void create()} data-testid="crea-utente">
            Crea
          </Button>
        </Stack>
      </Modal>
      <Modal
        opened={passwordFor !== null}
        onClose={() => setPasswordFor(null)}
        title={`Nuova password per ${passwordFor?.username ?? ""}`}
        centered
      >
        <Stack>
          <PasswordInput
            label="Nuova password"
            description="Almeno 12 caratteri, diversa dal nome utente e non tra le più comuni"
            {...field(passwordForm, "password")}
          />
          <Button onClick={() => void savePassword()}>Salva</Button>
        </Stack>
      </Modal>
    </Stack>
  );
}

export function ApiKeysScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.apiKeys.list.queryOptions());
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.audit.list.pathKey() }),
    ]);
  const creatingKey = useMutation(trpc.apiKeys.create.mutationOptions());
  const revoking = useMutation(trpc.apiKeys.revoke.mutationOptions());
  const [creating, setCreating] = useState(false);
  const form = useForm({ initialValues: { nome: "", scrittura: false, webhook: false } });
  const [formError, setFormError] = useState<string | null>(null);
  const [shown, setShown] = useState<{ nome: string; chiave: string } | null>(null);
  const [toRevoke, setToRevoke] = useState<{ id: number; nome: string } | null>(null);

  async function create() {
    setFormError(null);
    try {
      const { nome, scrittura, webhook } = form.getValues();
      const permessi = [
        ...(scrittura ? (["lettura", "scrittura"] as const) : (["lettura"] as const)),
        ...(webhook ? (["webhook"] as const) : []),
      ];
      const k = await creatingKey.mutateAsync({ nome, permessi });
      setCreating(false);
      // Every field back to its default: a scope is given only when ticked for that key, never left over from the last one.
      form.reset();
      setShown({ nome: k.nome, chiave: k.chiave });
      await refresh();
    } catch (e) {
      setFormError(describeError(e).messaggio);
    }
  }

  async function revoke() {
    if (!toRevoke) return;
    try {
      await revoking.mutateAsync({ id: toRevoke.id });
      notifications.show({ color: "green", message: `Chiave '${toRevoke.nome}' revocata: da ora le sue richieste ricevono 401.` });
      await refresh();
    } catch (e) {
      fail(e);
    } finally {
      setToRevoke(null);
    }
  }

  return (
    <Stack gap="md" maw={1100}>
      <Group justify="space-between">
        <Title order={2}>Chiavi API</Title>
        <Button onClick={() => setCreating(true)} data-testid="nuova-chiave">
          Nuova chiave
        </Button>
      </Group>
      <Text c="dimmed" size="sm">
        Le chiavi danno accesso a /api/v1 ai sistemi esterni. Si vedono una sola volta, alla creazione: il servizio ne conserva solo
        l&apos;impronta.
      </Text>
      <DataTable
        minWidth={760}
        striped
        verticalSpacing="sm"
        data-testid="tabella-chiavi"
        columns={[
          { label: "Nome" },
          { label: "Prefisso" },
          { label: "Permessi" },
          { label: "Creata" },
          { label: "Ultimo uso" },
          { label: "Stato" },
          { key: "azioni", wide: true },
        ]}
      >
        {(keys.data?.chiavi ?? []).map((k) => (
          <Table.Tr key={k.id} data-testid={`chiave-${k.nome}`}>
            <Table.Td fw={700}>{k.nome}</Table.Td>
            <Table.Td>
              <Code>{k.prefisso}</Code>
            </Table.Td>
            <Table.Td>{k.permessi.join(", ")}</Table.Td>
            <Table.Td>{instant(k.creata_il)}</Table.Td>
            <Table.Td>{instant(k.ultimo_uso_il)}</Table.Td>
            <Table.Td>
              <Badge color={k.revocata_il ? "gray" : "green"}>{k.revocata_il ? "revocata" : "attiva"}</Badge>
            </Table.Td>
            <Table.Td>
              {!k.revocata_il && (
                <Button size="sm" color="red" variant="light" onClick={() => setToRevoke({ id: k.id, nome: k.nome })}>
                  Revoca
                </Button>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>

      <Modal opened={creating} onClose={() => setCreating(false)} title="Nuova chiave API" centered>
        <Stack>
          <TextInput
            label="Nome"
            description="Chi la usa, per esempio il gestionale"
            {...field(form, "nome")}
            data-testid="campo-nome-chiave"
          />
          <Checkbox label="Anche scrittura (movimenti, arrivi, allineamenti)" {...form.getInputProps("scrittura", { type: "checkbox" })} />
          <Checkbox
            label="Anche webhook (la chiave crea e gestisce i propri webhook da /api/v1/webhook)"
            {...form.getInputProps("webhook", { type: "checkbox" })}
            data-testid="permesso-webhook"
          />
          {formError && <Alert color="red">{formError}</Alert>}
          <Button onClick={() => void create()} data-testid="crea-chiave">
            Crea
          </Button>
        </Stack>
      </Modal>
      <Modal opened={shown !== null} onClose={() => setShown(null)} title={`Chiave '${shown?.nome ?? ""}' creata`} centered size="lg">
        <Stack>
          <Alert color="yellow">È mostrata solo ora e non si può recuperare: copiarla e conservarla in un luogo sicuro.</Alert>
          <SecretShown value={shown?.chiave ?? ""} testId="chiave-creata" noun="chiave" />
        </Stack>
      </Modal>
      <Modal opened={toRevoke !== null} onClose={() => setToRevoke(null)} title="Revocare la chiave?" centered>
        <Stack>
          <Text>
            Revocare la chiave <b>{toRevoke?.nome}</b>? I sistemi che la usano riceveranno 401 da subito. Non si può annullare.
          </Text>
          <Group grow>
            <Button color="red" onClick={() => void revoke()}>
              Revoca
            </Button>
            <Button variant="default" onClick={() => setToRevoke(null)}>
              Annulla
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
