-- The open purchase orders, for `in_arrivo` (GET /disponibilita): its page joined the page's order rows to
-- their orders by a scan of every order ever written (a hash join, the planner expecting many rows of the
-- page's id range), a large share of each 500-article page, and growing with the years of orders. The open
-- ones are the present, not the history: with this index the join reads only them.
CREATE INDEX "ordini_acquisto_aperti_idx" ON "ordini_acquisto"("id") WHERE stato <> 'evaso';
