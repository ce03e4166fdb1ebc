-- Putaway by SSCC (docs/api.md section 11, "a pallet's SSCC puts away what of that pallet is still in a receiving
-- location"; section 12, "putaway by SSCC read that record"). One row per pallet receipt put away by its
-- SSCC: the primary key is what makes two handhelds putting away one pallet at once move its goods once
-- (the second INSERT waits for the first to commit, then conflicts: `collo_gia_stoccato`). Keyed by the
-- receipt, not the pallet: a pallet cancelled and received again is a new receipt, to be put away again.
CREATE TABLE "stoccaggi_collo" (
    "ricevimento_id" INTEGER PRIMARY KEY REFERENCES "ricevimenti_collo" ("id"),
    "operazione_id"  INTEGER REFERENCES "operazioni" ("id"),
    "ubicazione_id"  INTEGER REFERENCES "ubicazioni" ("id"),
    "stoccato_il"    TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- GET /da-stoccare names a row's pallet: the receipts standing in a receiving location, found by location.
CREATE INDEX "ricevimenti_collo_ubicazione_id_idx" ON "ricevimenti_collo" ("ubicazione_id");
