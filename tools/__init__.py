"""Offline generators whose output ships as data (run from the repository, never by the server)."""
