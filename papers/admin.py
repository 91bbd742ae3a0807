from django.contrib import admin

from papers.models import HarvestWatermark, Paper, PendingLookup


@admin.register(Paper)
class PaperAdmin(admin.ModelAdmin):
    list_display = ("arxiv_id", "version", "title", "primary_category", "announced", "withdrawn")
    list_filter = ("withdrawn", "primary_category")
    search_fields = ("arxiv_id", "title")
    date_hierarchy = "announced"
    readonly_fields = ("created_at", "modified_at")


@admin.register(HarvestWatermark)
class HarvestWatermarkAdmin(admin.ModelAdmin):
    list_display = ("source", "value", "updated_at")


@admin.register(PendingLookup)
class PendingLookupAdmin(admin.ModelAdmin):
    list_display = ("arxiv_id", "requested_at", "attempts", "not_found")
    list_filter = ("not_found",)
