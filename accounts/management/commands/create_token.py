"""manage.py create_token USERNAME --name NAME [--scopes read lists:write ...]

Prints a new API token for operators and scripts. It is shown once; only its hash is stored.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.errors import AccountsError
from accounts.services.tokens import ALL_SCOPES, token_create


class Command(BaseCommand):
    help = "Create an API token for a user and print it (once)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", required=True, help="what the token is for")
        parser.add_argument(
            "--scopes",
            nargs="+",
            default=["read"],
            metavar="SCOPE",
            help=f"any of {', '.join(ALL_SCOPES)}, or 'all' (default: read)",
        )

    def handle(self, *args, username, name, scopes, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user {username!r}.")
        if "all" in scopes:
            scopes = list(ALL_SCOPES)
        scopes = [s for part in scopes for s in part.split(",") if s]
        try:
            token, raw = token_create(user=user, name=name, scopes=scopes)
        except AccountsError as error:
            raise CommandError(error.detail) from None
        self.stderr.write(
            f"Token {token.name!r} for {username} with scopes {', '.join(token.scopes)}:"
        )
        self.stdout.write(raw)
