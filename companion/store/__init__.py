"""The append-only SQLite log, the summaries of ended games, and recovery from a damaged file."""
