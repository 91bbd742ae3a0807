"""manage.py load_taxonomy: make the topics in the database match topics/taxonomy/*.yaml."""

from django.core.management.base import BaseCommand, CommandError

from topics.services.taxonomy import taxonomy_load
from topics.tagger.taxonomy import TaxonomyError


class Command(BaseCommand):
    help = "Load the versioned topic taxonomy (idempotent; renames keep follows, removals retire)."

    def handle(self, *args, **options):
        try:
            result = taxonomy_load()
        except TaxonomyError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(result.summary())
