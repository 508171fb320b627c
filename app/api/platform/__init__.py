"""The platform plumbing every route shares: middleware, CORS, headers, negotiation, client
addresses, deprecation, admission, idempotency keys, HEAD requests, responses and the
explicit request path."""
