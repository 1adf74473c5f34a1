"""The pit: one console for every table on the floor (issue 23; docs/pit.md)."""
