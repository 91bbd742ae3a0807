"""manage.py topic_stats: recount weekly papers per topic and refresh momentum now."""

from django.core.management.base import BaseCommand

from topics.services.stats import topic_stats_recompute


class Command(BaseCommand):
    help = "Recompute weekly counts and momentum for every topic."

    def handle(self, *args, **options):
        count = topic_stats_recompute()
        self.stdout.write(f"momentum refreshed for {count} topics")
