"""Request and response models, one module per area; requests are strict (API.md)."""
