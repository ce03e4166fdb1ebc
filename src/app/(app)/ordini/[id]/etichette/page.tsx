import { Alert, Group, Stack, Text, Title } from "@mantine/core";
import { DomainError } from "@/server/lib/errors";
import { count, day, qty } from "@/ui/format";
import { PrintButton } from "@/ui/screens/orders";
import { code128Svg, eanSvg } from "@/ui/server/barcodes";
import { openScreen } from "@/ui/server/screen";
import { serverCaller } from "@/ui/server/session";

export const metadata = { title: "Etichette ordine" };

/**
 * A purchase order printed as cut-out labels, one per row: Code 128 with R<riga> (the receiving
 * screen's label scan) and the article's EAN, so goods can be received from paper.
 */
export default async function OrderLabelsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await openScreen(/^\d{1,12}$/.test(id) ? `/ordini/${id}/etichette` : "/ordini");
  const caller = await serverCaller();
  let order;
  try {
    order = await caller.orders.printable({ id: /^\d{1,9}$/.test(id) ? Number(id) : 0 });
  } catch (e) {
    const message = e instanceof Error && (e.cause instanceof DomainError || e instanceof DomainError) ? e.message : "Ordine non trovato.";
    return (
      <Alert color="red" title="Ordine non disponibile">
        {message}
      </Alert>
    );
  }
  return (
    <Stack gap="md">
      <Group justify="space-between" align="start">
        <div>
          <Title order={2}>
            Ordine {order.numero} · {order.fornitore.nome}
          </Title>
          <Text c="dimmed">
            Del {day(order.data)} · magazzino {order.magazzino.codice} · {count(order.righe.length, "riga", "righe")} · stato {order.stato}
          </Text>
        </div>
        <PrintButton />
      </Group>
      <div className="labels" data-testid="etichette">
        {order.righe.map((r) => (
          <div key={r.riga} className="label" data-testid={`etichetta-${r.etichetta}`}>
            <Text size="xs" c="dimmed">
              {order.numero} · riga {r.posizione} · {order.fornitore.nome}
            </Text>
            <Text fw={800} size="lg" lh={1.2}>
              {r.articolo.codice}
            </Text>
            <Text size="sm" lineClamp={2}>
              {r.articolo.descrizione}
            </Text>
            <Text size="sm" mb={6}>
              Ordinata <b>{qty(r.ordinata)}</b> {r.articolo.unita} · residua {qty(r.residua)}
            </Text>
            {/* biome-ignore lint/security/noDangerouslySetInnerHtml: SVG drawn on the server by bwip-js from our own label text */}
            <div dangerouslySetInnerHTML={{ __html: code128Svg(r.etichetta) }} style={{ maxWidth: 260 }} />
            {r.articolo.ean ? (
              // biome-ignore lint/security/noDangerouslySetInnerHtml: SVG drawn on the server by bwip-js from a validated EAN
              <div dangerouslySetInnerHTML={{ __html: eanSvg(r.articolo.ean) }} style={{ maxWidth: 220, marginTop: 8 }} />
            ) : (
              <Text size="xs" c="dimmed" mt={6}>
                Articolo senza EAN
              </Text>
            )}
          </div>
        ))}
      </div>
    </Stack>
  );
}
