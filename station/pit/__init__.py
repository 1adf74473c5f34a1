"""The pit: one console for every table on the floor, over the studio's broker (issue 23,
docs/pit.md)."""
