from django.contrib import admin

from ask.models import AskLog, PaperText


@admin.register(AskLog)
class AskLogAdmin(admin.ModelAdmin):
    """Model use per user: filter by mode and model, search by user or question."""

    list_display = ["created_at", "user", "address", "scope", "target", "mode", "model",
                    "prompt_tokens", "completion_tokens", "duration_ms"]  # fmt: skip
    list_filter = ["mode", "scope", "model"]
    search_fields = ["user__username", "question", "target", "address"]
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in AskLog._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(PaperText)
class PaperTextAdmin(admin.ModelAdmin):
    list_display = ["paper", "source", "version", "chars", "fetched_at"]
    list_filter = ["source"]
    raw_id_fields = ["paper"]
