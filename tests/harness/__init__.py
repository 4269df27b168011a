"""Self-tests of the test harness (tests/conftest.py fixtures and tests/run)."""
