"""manage.py propose_topics: find emerging topics now (what the weekly task does) and print them.

    manage.py propose_topics [--days 28] [--dry-run] [--all]

Clusters recent papers the taxonomy covers poorly (topics.services.proposals) and stores each
cluster as a TopicProposal for a person to accept or reject in the admin. ``--dry-run`` prints
without storing; ``--all`` also prints the clusters that were not proposed and why.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from topics.models import Topic


class Command(BaseCommand):
    help = "Propose new topics from recent, poorly covered papers and print the proposals."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=28, help="window up to the newest paper")
        parser.add_argument("--dry-run", action="store_true", help="print, do not store")
        parser.add_argument("--all", action="store_true", help="also print skipped clusters")

    def handle(self, *args, **options):
        from topics.services.proposals import topic_proposals_create

        if options["days"] < 1:
            raise CommandError("--days must be at least 1")
        run = topic_proposals_create(days=options["days"], dry_run=options["dry_run"])
        out = self.stdout.write
        out(run.summary())
        parents = Topic.objects.in_bulk([c.parent_id for c in run.clusters if c.parent_id])
        stored = {frozenset(p.papers.values_list("id", flat=True)): p for p in run.proposals}
        shown = 0
        for cluster in run.clusters:
            if cluster.skipped and not options["all"]:
                continue
            shown += 1
            proposal = stored.get(frozenset(cluster.paper_ids))
            label = f"proposal {proposal.id}" if proposal else "not stored"
            parent = parents.get(cluster.parent_id)
            out("")
            out(
                f"{cluster.name or '(unnamed)'}  [{label}]  {len(cluster.paper_ids)} papers, "
                f"{cluster.first_authors} first authors, cohesion {cluster.cohesion:.2f}, "
                f"parent: {parent.name if parent else '-'}"
            )
            if cluster.skipped:
                out(f"  skipped: {cluster.skipped}")
            if cluster.phrases:
                out(f"  phrases: {', '.join(cluster.phrases)}")
            for central in cluster.central:
                out(f"  - {central['arxiv_id']}  {central['title'][:100]}")
        if not shown:
            out("no proposals")
