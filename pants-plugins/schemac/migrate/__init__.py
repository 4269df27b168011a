"""Versioned migrations: catalog snapshots, the schema diff engine, the history directory and the apply runner."""
