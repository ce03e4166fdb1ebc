-- Purchase orders fed by an ERP (docs/api.md section 9) are identified by (supplier, number): two suppliers
-- may use the same order number. The number alone is no longer unique.
DROP INDEX "ordini_acquisto_numero_key";
CREATE UNIQUE INDEX "ordini_acquisto_fornitore_id_numero_key" ON "ordini_acquisto"("fornitore_id", "numero");
