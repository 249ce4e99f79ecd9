"""The real side: runs the target program's own validation (never imported by the static side)."""
