import type { Role } from "@/server/modules/auth/actor";

export interface NavItem {
  href: string;
  label: string;
  role: Role;
  group: "Magazzino" | "Gestione" | "Amministrazione";
}

/** The screens, each with the least role that may open it (the server enforces the same on its procedures). */
export const NAV: NavItem[] = [
  { href: "/ricevimento", label: "Ricevimento", role: "operatore", group: "Magazzino" },
  { href: "/ricevimento/fornitore", label: "Ricevimento per fornitore", role: "operatore", group: "Magazzino" },
  { href: "/stoccaggio", label: "Stoccaggio", role: "operatore", group: "Magazzino" },
  { href: "/inventario", label: "Inventario", role: "operatore", group: "Magazzino" },
  { href: "/ubicazioni", label: "Ubicazioni", role: "operatore", group: "Magazzino" },
  { href: "/ordini", label: "Ordini", role: "operatore", group: "Magazzino" },
  { href: "/articoli", label: "Articoli", role: "operatore", group: "Magazzino" },
  { href: "/fornitori", label: "Fornitori", role: "operatore", group: "Magazzino" },
  { href: "/disponibilita", label: "Disponibilità", role: "responsabile", group: "Gestione" },
  { href: "/prenotazioni", label: "Prenotazioni", role: "responsabile", group: "Gestione" },
  { href: "/movimenti", label: "Movimenti", role: "responsabile", group: "Gestione" },
  { href: "/movimenti/nuovo", label: "Nuovo movimento", role: "responsabile", group: "Gestione" },
  { href: "/vendite", label: "Documenti di vendita", role: "responsabile", group: "Gestione" },
  { href: "/avvisi", label: "Avvisi e differenze", role: "responsabile", group: "Gestione" },
  { href: "/utenti", label: "Utenti", role: "amministratore", group: "Amministrazione" },
  { href: "/chiavi-api", label: "Chiavi API", role: "amministratore", group: "Amministrazione" },
  { href: "/webhook", label: "Webhook", role: "amministratore", group: "Amministrazione" },
  { href: "/stampanti", label: "Stampanti", role: "amministratore", group: "Amministrazione" },
];
