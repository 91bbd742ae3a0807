"""Account pages, one module a concern; `responses` holds how every form view answers."""
