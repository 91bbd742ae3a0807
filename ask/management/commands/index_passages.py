from django.core.management.base import BaseCommand

from ask.services.passages import passages_index_pending


class Command(BaseCommand):
    help = "Index Ask's passages (title, abstract sentences) of every paper not indexed yet."

    def add_arguments(self, parser):
        parser.add_argument("--limit", type=int, default=1_000_000)

    def handle(self, *args, limit: int, **options):
        written = passages_index_pending(limit=limit)
        self.stdout.write(f"indexed {written} passages")
