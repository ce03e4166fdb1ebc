"use client";
import { Badge, Box, Button, Card, Group, Modal, Paper, Select, SimpleGrid, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useCallback, useEffect, useRef, useState } from "react";
import type { SearchOutput } from "@/server/modules/arrivals/arrivals.schemas";
import { describeError, describeWriteError, outcomeUnknown } from "../errors";
import { signal, type Outcome } from "../feedback";
import { day, parseDecimal, qty } from "../format";
import { useRemembered, useWarehouses } from "../hooks";
import { useTRPCClient } from "../trpc";
import { useWriteKey } from "../write-key";
import { CameraScanner } from "./camera-scanner";

type Order = SearchOutput["ordini"][number];
type Row = Order["righe"][number];

interface Current {
  order: Order;
  row: Row;
  lettura: SearchOutput["lettura"];
}

interface SessionArrival {
  movimento: number;
  riga: number;
  etichetta: string;
  codice: string;
  descrizione: string;
  quantita: string;
  lotto: string | null;
  ddt: string;
  ordine: string;
  ora: string;
  annullato: boolean;
}

interface Feedback {
  outcome: Outcome;
  title: string;
  message?: string;
}

function isEditable(el: Element | null): boolean {
  if (!el) return false;
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (el as HTMLElement).isContentEditable;
}

export function ReceivingScreen() {
  const client = useTRPCClient();
  const { shortOptions: warehouseOptions, magazzini } = useWarehouses();
  const [ddt, setDdt] = useRemembered("ddt", "");
  const [magazzino, setMagazzino] = useRemembered<string | null>("magazzino", null);
  const [arrivals, setArrivals] = useRemembered<SessionArrival[]>("arrivi", []);
  const [scan, setScan] = useState("");
  const [current, setCurrent] = useState<Current | null>(null);
  const [quantita, setQuantita] = useState("");
  const [lotto, setLotto] = useState("");
  const [scadenza, setScadenza] = useState("");
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const [busy, setBusy] = useState<"search" | "register" | null>(null);
  const [toCancel, setToCancel] = useState<SessionArrival | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const scanRef = useRef<HTMLInputElement>(null);
  const ddtRef = useRef<HTMLInputElement>(null);
  const inFlight = useRef(false);
  const writeKey = useWriteKey();
  const cancelKey = useWriteKey();

  const focusScan = useCallback(() => {
    requestAnimationFrame(() => scanRef.current?.focus());
  }, []);

  // The scan field holds the focus: a keystroke that lands nowhere in particular goes to it, so a
  // keyboard-wedge scanner always types into the right place.
  useEffect(() => {
    focusScan();
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (isEditable(document.activeElement) || document.querySelector("[role=dialog]")) return;
      if (e.key.length === 1 || e.key === "Enter") scanRef.current?.focus();
    };
    document.addEventListener("keydown", onKey, true);
    return () => document.removeEventListener("keydown", onKey, true);
  }, [focusScan]);

  // The first start of a tab: the warehouse of the only warehouse there is.
  useEffect(() => {
    if (magazzino === null && magazzini.length === 1) setMagazzino(String(magazzini[0]!.id));
  }, [magazzini, magazzino, setMagazzino]);

  function say(outcome: Outcome, title: string, message?: string) {
    signal(outcome);
    setFeedback({ outcome, title, message });
  }

  async function search(code: string) {
    const started = performance.now();
    setBusy("search");
    try {
      const res = await client.arrivals.search.mutate({ barcode: code });
      const order = res.ordini[0];
      const row = order?.righe[0];
      if (!order || !row) {
        setCurrent(null);
        say("ko", res.motivo ?? "Codice non atteso", `Codice letto: ${code}`);
        return;
      }
      // A new row shown is a new arrival: it gets its own key.
      writeKey.reset();
      setCurrent({ order, row, lettura: res.lettura });
      setQuantita(qty(row.residua));
      setLotto(res.lettura?.lotto ?? "");
      setScadenza(res.lettura?.scadenza ?? "");
      if (magazzino === null) setMagazzino(String(order.magazzino));
      const altre = res.totale_righe > 1 ? `${res.totale_righe} righe attese per questo articolo: proposta la più vecchia.` : undefined;
      say("info", "Controllare la quantità, poi Invio", altre);
      const ms = Math.round(performance.now() - started);
      document.body.dataset.ultimaScansioneMs = String(ms);
    } catch (e) {
      setCurrent(null);
      say("ko", "Ricerca non riuscita", describeError(e).messaggio);
    } finally {
      setBusy(null);
      focusScan();
    }
  }

  async function register() {
    if (!current || inFlight.current) return;
    if (!ddt.trim()) {
      say("ko", "Indicare il DDT", "Il numero del documento di trasporto del fornitore è obbligatorio.");
      ddtRef.current?.focus();
      return;
    }
    if (!magazzino) {
      say("ko", "Scegliere il magazzino");
      return;
    }
    const q = parseDecimal(quantita);
    if (q === null || q <= 0) {
      say("ko", "Quantità non valida", `"${quantita}" non è una quantità: usare per esempio 12 o 2,5.`);
      return;
    }
    if (current.row.chiede_lotto && !lotto.trim()) {
      say("ko", "Lotto obbligatorio", `${current.row.articolo.codice} è gestito a lotti: indicare il lotto.`);
      return;
    }
    inFlight.current = true;
    setBusy("register");
    const { row, order } = current;
    const request = {
      magazzino: Number(magazzino),
      ddt: ddt.trim(),
      riga: row.riga,
      quantita: q,
      ...(row.chiede_lotto && lotto.trim() ? { lotto: lotto.trim() } : {}),
      ...(row.chiede_lotto && scadenza ? { scadenza } : {}),
    };
    try {
      // The key is kept after success until the next row is shown: an Enter that lands before the
      // screen has cleared the row replays this arrival instead of registering it again.
      const out = await client.arrivals.register.mutate(request, { context: { idempotencyKey: writeKey.for(request) } });
      if (!("movimento" in out)) throw new Error("Risposta inattesa dal servizio.");
      const arrival: SessionArrival = {
        movimento: out.movimento,
        riga: row.riga,
        etichetta: row.etichetta,
        codice: row.articolo.codice,
        descrizione: row.descrizione,
        quantita: String(q),
        lotto: row.chiede_lotto ? lotto.trim() : null,
        ddt: ddt.trim(),
        ordine: order.numero,
        ora: new Date().toLocaleTimeString("it-IT", { hour: "2-digit", minute: "2-digit" }),
        annullato: false,
      };
      // A replayed answer (pressed again after a lost answer) carries the same movement: listed once.
      setArrivals((list) => (list.some((a) => a.movimento === arrival.movimento) ? list : [arrival, ...list]));
      setCurrent(null);
      say(
        "ok",
        `Registrato: ${qty(q)} × ${row.articolo.codice}`,
        `Residuo sulla riga ${row.etichetta}: ${qty(out.residua)} · ordine ${order.numero} ${out.ordine.stato}`,
      );
    } catch (e) {
      writeKey.settle(e);
      const err = describeWriteError(e);
      say("ko", outcomeUnknown(err) ? "Esito incerto" : "Registrazione rifiutata", err.messaggio);
    } finally {
      inFlight.current = false;
      setBusy(null);
      focusScan();
    }
  }

  async function confirmCancel() {
    if (!toCancel || cancelling) return;
    setCancelling(true);
    try {
      const request = { id: String(toCancel.movimento) };
      const out = await client.arrivals.cancel.mutate(request, { context: { idempotencyKey: cancelKey.for(request) } });
      cancelKey.settle();
      setArrivals((list) => list.map((a) => (a.movimento === toCancel.movimento ? { ...a, annullato: true } : a)));
      say(
        "ok",
        `Arrivo annullato: ${qty(toCancel.quantita)} × ${toCancel.codice}`,
        `Residuo sulla riga ${toCancel.etichetta}: ${qty(out.riga.residua)}`,
      );
    } catch (e) {
      cancelKey.settle(e);
      const err = describeWriteError(e);
      if (err.codice === "arrivo_gia_annullato")
        setArrivals((list) => list.map((a) => (a.movimento === toCancel.movimento ? { ...a, annullato: true } : a)));
      say("ko", outcomeUnknown(err) ? "Esito incerto" : "Annullamento rifiutato", err.messaggio);
    } finally {
      setCancelling(false);
      setToCancel(null);
      focusScan();
    }
  }

  function onScanKey(e: React.KeyboardEvent<HTMLInputElement>) {
    if (e.key !== "Enter") return;
    e.preventDefault();
    const code = scan.trim();
    if (code) {
      setScan("");
      if (busy !== "register") void search(code);
    } else if (current) {
      void register();
    }
  }

  const onFieldEnter = (e: React.KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Enter") {
      e.preventDefault();
      void register();
    }
  };

  const row = current?.row;
  return (
    <Stack gap="md" maw={900}>
      <Group justify="space-between" align="baseline">
        <Title order={2}>Ricevimento</Title>
        <CameraScanner onCode={(code) => void search(code)} />
      </Group>

      <SimpleGrid cols={2} spacing="sm">
        <TextInput
          ref={ddtRef}
          label="DDT fornitore"
          placeholder="es. DDT-1187"
          value={ddt}
          onChange={(e) => setDdt(e.currentTarget.value)}
          onKeyDown={(e) => e.key === "Enter" && (e.preventDefault(), focusScan())}
          data-testid="campo-ddt"
        />
        <Select
          label="Magazzino"
          placeholder="Scegliere"
          data={warehouseOptions}
          value={magazzino}
          onChange={(v) => {
            setMagazzino(v);
            focusScan();
          }}
          allowDeselect={false}
          // Half of a 360 px screen: a narrow chevron leaves the warehouse code readable.
          rightSectionWidth={26}
          styles={{ input: { paddingRight: 26, fontSize: "0.95rem" } }}
          data-testid="campo-magazzino"
        />
      </SimpleGrid>

      <TextInput
        ref={scanRef}
        className="scan-input"
        label="Codice letto (EAN, etichetta R…, GS1)"
        placeholder="Leggere il codice"
        value={scan}
        onChange={(e) => setScan(e.currentTarget.value)}
        onKeyDown={onScanKey}
        onBlur={() =>
          setTimeout(() => {
            if (!isEditable(document.activeElement) && !document.querySelector("[role=dialog]")) scanRef.current?.focus();
          }, 150)
        }
        autoComplete="off"
        autoCapitalize="characters"
        autoCorrect="off"
        spellCheck={false}
        enterKeyHint="go"
        data-testid="campo-scansione"
        aria-busy={busy === "search"}
      />

      {feedback && (
        <Paper
          p="md"
          radius="md"
          className={`feedback-${feedback.outcome}`}
          role={feedback.outcome === "ko" ? "alert" : "status"}
          data-testid="esito"
          data-esito={feedback.outcome}
        >
          <Text fw={800} size={feedback.outcome === "ko" ? "1.7rem" : "xl"} lh={1.2}>
            {feedback.title}
          </Text>
          {feedback.message && (
            <Text size={feedback.outcome === "ko" ? "xl" : "md"} mt={4} fw={feedback.outcome === "ko" ? 600 : 400}>
              {feedback.message}
            </Text>
          )}
        </Paper>
      )}

      {current && row && (
        <Card withBorder shadow="sm" padding="md" data-testid="riga-attesa">
          <Stack gap="xs">
            <Group justify="space-between" wrap="wrap" gap={4}>
              <Text size="sm" c="dimmed">
                {current.order.fornitore.nome} · ordine <b>{current.order.numero}</b> del {day(current.order.data)}
              </Text>
              <Badge variant="outline">{row.etichetta}</Badge>
            </Group>
            <div>
              <Text fw={800} size="xl" data-testid="articolo-codice">
                {row.articolo.codice}
              </Text>
              <Text>{row.descrizione}</Text>
            </div>
            <SimpleGrid cols={3} spacing="xs">
              <Box>
                <Text size="xs" c="dimmed" tt="uppercase">
                  Ordinata
                </Text>
                <div className="big-number" data-testid="ordinata">
                  {qty(row.ordinata)}
                </div>
              </Box>
              <Box>
                <Text size="xs" c="dimmed" tt="uppercase">
                  Arrivata
                </Text>
                <div className="big-number" data-testid="arrivata">
                  {qty(row.arrivata)}
                </div>
              </Box>
              <Box>
                <Text size="xs" c="dimmed" tt="uppercase">
                  Residua
                </Text>
                <div className="big-number" data-testid="residua" style={{ color: "var(--mantine-color-indigo-7)" }}>
                  {qty(row.residua)}
                </div>
              </Box>
            </SimpleGrid>
            {magazzino && Number(magazzino) !== current.order.magazzino && (
              <Text size="sm" c="orange.8">
                Attenzione: l&apos;ordine è destinato a un altro magazzino (
                {magazzini.find((m) => m.id === current.order.magazzino)?.codice}).
              </Text>
            )}
            <SimpleGrid cols={{ base: row.chiede_lotto ? 1 : 1, xs: row.chiede_lotto ? 3 : 1 }} spacing="sm">
              <TextInput
                label="Quantità"
                inputMode="decimal"
                value={quantita}
                onChange={(e) => setQuantita(e.currentTarget.value)}
                onKeyDown={onFieldEnter}
                onFocus={(e) => e.currentTarget.select()}
                data-testid="campo-quantita"
                size="lg"
              />
              {row.chiede_lotto && (
                <>
                  <TextInput
                    label="Lotto"
                    value={lotto}
                    onChange={(e) => setLotto(e.currentTarget.value)}
                    onKeyDown={onFieldEnter}
                    data-testid="campo-lotto"
                    size="lg"
                  />
                  <TextInput
                    label="Scadenza"
                    type="date"
                    value={scadenza}
                    onChange={(e) => setScadenza(e.currentTarget.value)}
                    onKeyDown={onFieldEnter}
                    data-testid="campo-scadenza"
                    size="lg"
                  />
                </>
              )}
            </SimpleGrid>
            <Button size="xl" fullWidth onClick={() => void register()} loading={busy === "register"} data-testid="registra">
              Registra
            </Button>
            <Button
              variant="subtle"
              color="gray"
              onClick={() => {
                setCurrent(null);
                setFeedback(null);
                focusScan();
              }}
            >
              Lascia questa riga
            </Button>
          </Stack>
        </Card>
      )}

      <Stack gap="xs" data-testid="arrivi-sessione">
        <Title order={4}>Arrivi di questa sessione</Title>
        {arrivals.length === 0 ? (
          <Text c="dimmed" size="sm">
            Nessun arrivo registrato da questo dispositivo in questa sessione.
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={300}>
            <Table verticalSpacing="sm" striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Articolo</Table.Th>
                  <Table.Th className="num">Q.tà</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {arrivals.map((a) => (
                  <Table.Tr key={a.movimento} data-testid={`arrivo-${a.movimento}`} style={a.annullato ? { opacity: 0.55 } : undefined}>
                    <Table.Td>
                      <Text fw={700} size="sm" td={a.annullato ? "line-through" : undefined}>
                        {a.codice}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {a.ora} · {a.etichetta} · {a.ordine} · DDT {a.ddt}
                        {a.lotto ? ` · lotto ${a.lotto}` : ""}
                      </Text>
                    </Table.Td>
                    <Table.Td className="num">{qty(a.quantita)}</Table.Td>
                    <Table.Td>
                      {a.annullato ? (
                        <Badge color="gray">Annullato</Badge>
                      ) : (
                        <Button size="sm" color="red" variant="light" onClick={() => setToCancel(a)} data-testid={`annulla-${a.movimento}`}>
                          Annulla
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>

      <Modal opened={toCancel !== null} onClose={() => (setToCancel(null), focusScan())} title="Annullare l'arrivo?" centered>
        {toCancel && (
          <Stack>
            <Text>
              Annullare l&apos;arrivo di{" "}
              <b>
                {qty(toCancel.quantita)} × {toCancel.codice}
              </b>{" "}
              (riga {toCancel.etichetta}, DDT {toCancel.ddt})? Viene scritto un movimento di storno e la quantità torna da ricevere.
            </Text>
            <Group grow>
              <Button color="red" size="lg" onClick={() => void confirmCancel()} loading={cancelling} data-testid="conferma-annulla">
                Sì, annulla
              </Button>
              <Button variant="default" size="lg" onClick={() => (setToCancel(null), focusScan())}>
                No
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}
