"""The rules engine: pure Python, no web, database or validation library (see RULES.md ids)."""
