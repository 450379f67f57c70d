"""Role-aware context: items with an authority lattice and the deterministic arbiter (spec §5.1–§5.7).

Pure rules over plain data, no I/O and no clock: the services load the pool, derive the origin of
a write from the verified credential, and call these to validate items and assemble packets.

- ``items``: the ContextItem type, its limits, control-plane refusal, the grant floor (§5.1);
- ``derivation``: derived and summarised items with bounded lineage (§5.3);
- ``request``: the packet request (§5.2);
- ``policies``: role policies and budgets (§5.4);
- ``tokens``: token estimates in UTF-16 code units (§5.6);
- ``relevance``: BM25 exactly as the original (§5.7);
- ``ordering``: UTF-16 code-unit order and JavaScript's ``Math.round`` (§11.11, §11.12);
- ``arbiter``: eligibility, the nine ordering keys, first-fit fill, sections, gaps, audit (§5.5);
- ``documents``: the JSON shapes of items, packets and audits, and the content-derived packet id.
"""
