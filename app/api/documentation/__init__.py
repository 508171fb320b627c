"""The documentation built from the contract: the OpenAPI document, its examples and the
docs pages."""
