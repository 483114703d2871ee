"""Pure analyses over tile-level IR (no rewriting)."""
