"""ContextService's rules: items, packets, recall, temporal state, episodes (issue 17, docs/context.md)."""
