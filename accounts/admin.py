from django.contrib import admin
from django.db.models import Count, Q
from django.utils import timezone

from accounts.forms import AdminLoginForm
from accounts.models import (
    ApiToken,
    Deletion,
    DigestDelivery,
    DigestRun,
    DigestSettings,
    Follow,
    Hidden,
    Library,
    ListItem,
    PaperAlert,
    PrivateFeed,
    ReadingList,
)

# The admin's sign-in gets the same password-guessing brake as the site's (docs/security.md).
admin.site.login_form = AdminLoginForm


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "scopes", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "user__username", "prefix")
    readonly_fields = ("prefix", "key_hash", "created_at", "last_used_at")
    actions = ["revoke"]

    def has_add_permission(self, request) -> bool:
        return False  # tokens are made by `create_token` or the account page: the secret shows once

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset):
        queryset.filter(revoked_at=None).update(revoked_at=timezone.now())


class ListItemInline(admin.TabularInline):
    model = ListItem
    extra = 0
    fields = ("arxiv_id", "paper", "read_state", "position", "version", "added_at")
    readonly_fields = ("paper", "version", "added_at")
    raw_id_fields = ("paper",)


@admin.register(ReadingList)
class ReadingListAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "is_default", "position", "version", "modified_at")
    search_fields = ("name", "user__username")
    readonly_fields = ("version", "created_at", "modified_at")
    inlines = [ListItemInline]


@admin.register(ListItem)
class ListItemAdmin(admin.ModelAdmin):
    list_display = ("arxiv_id", "reading_list", "read_state", "position", "version", "added_at")
    list_filter = ("read_state",)
    search_fields = ("arxiv_id", "reading_list__name", "reading_list__user__username")
    raw_id_fields = ("paper", "reading_list")
    readonly_fields = ("version", "modified_at")


@admin.register(Follow)
class FollowAdmin(admin.ModelAdmin):
    list_display = ("user", "topic", "digest_muted", "created_at")
    search_fields = ("user__username", "topic__slug")
    raw_id_fields = ("topic",)


@admin.register(Hidden)
class HiddenAdmin(admin.ModelAdmin):
    list_display = ("user", "paper", "created_at")
    raw_id_fields = ("paper",)


@admin.register(Library)
class LibraryAdmin(admin.ModelAdmin):
    list_display = ("user", "version")
    readonly_fields = ("version",)


@admin.register(Deletion)
class DeletionAdmin(admin.ModelAdmin):
    list_display = ("user", "kind", "list_id", "arxiv_id", "version", "deleted_at")
    list_filter = ("kind",)


# --- digests -----------------------------------------------------------------------------------


@admin.register(DigestSettings)
class DigestSettingsAdmin(admin.ModelAdmin):
    list_display = ("user", "frequency", "weekday", "covered_until", "last_sent_at", "bounced_at")
    list_filter = ("frequency", "bounced_at")
    search_fields = ("user__username", "user__email")
    readonly_fields = ("covered_until", "last_sent_at", "modified_at")
    actions = ["lift_bounce_pause"]

    @admin.action(description="Lift the bounce pause (the address works again)")
    def lift_bounce_pause(self, request, queryset):
        queryset.update(bounced_email="", bounced_at=None, bounce_reason="")


@admin.register(DigestRun)
class DigestRunAdmin(admin.ModelAdmin):
    list_display = ("started_at", "trigger", "cutoff", "planned", "sent", "waiting", "failed")
    readonly_fields = ("trigger", "cutoff", "started_at", "planned")

    def has_add_permission(self, request) -> bool:
        return False  # runs are made by the schedule and `send_digests`

    def get_queryset(self, request):
        state = DigestDelivery.State
        return (
            super()
            .get_queryset(request)
            .annotate(
                sent_count=Count("deliveries", filter=Q(deliveries__state=state.SENT)),
                waiting_count=Count(
                    "deliveries",
                    filter=Q(deliveries__state__in=[state.PENDING, state.SENDING]),
                ),
                failed_count=Count("deliveries", filter=Q(deliveries__state=state.FAILED)),
            )
        )

    @admin.display(ordering="sent_count")
    def sent(self, run) -> int:
        return run.sent_count

    @admin.display(ordering="waiting_count", description="pending or sending")
    def waiting(self, run) -> int:
        return run.waiting_count

    @admin.display(ordering="failed_count")
    def failed(self, run) -> int:
        return run.failed_count


@admin.register(DigestDelivery)
class DigestDeliveryAdmin(admin.ModelAdmin):
    """Where failed and retrying digests show: state, attempts, the last error, next try."""

    list_display = (
        "id",
        "user",
        "state",
        "attempts",
        "not_before",
        "sent_at",
        "paper_count",
        "alert_count",
        "short_error",
    )
    list_filter = ("state",)
    search_fields = ("user__username", "email", "last_error")
    raw_id_fields = ("run", "user")
    readonly_fields = (
        "run",
        "user",
        "window_start",
        "window_end",
        "claim_token",
        "claimed_at",
        "sent_at",
        "email",
        "paper_count",
        "alert_count",
        "arxiv_ids",
        "last_error",
        "created_at",
    )
    actions = ["retry_now"]

    def has_add_permission(self, request) -> bool:
        return False  # deliveries are planned, never made by hand

    @admin.display(description="last error")
    def short_error(self, delivery) -> str:
        return delivery.last_error[:120]

    @admin.action(description="Retry the selected failed or waiting digests now")
    def retry_now(self, request, queryset):
        state = DigestDelivery.State
        # A failed row may share its window with a newer delivery; those are left alone.
        updated = 0
        for delivery in queryset.filter(state__in=[state.FAILED, state.PENDING]):
            clash = (
                DigestDelivery.objects.filter(
                    user_id=delivery.user_id, window_start=delivery.window_start
                )
                .exclude(state=state.FAILED)
                .exclude(pk=delivery.pk)
            )
            if delivery.state == state.FAILED and clash.exists():
                continue
            updated += DigestDelivery.objects.filter(pk=delivery.pk).update(
                state=state.PENDING, not_before=timezone.now(), attempts=0
            )
        self.message_user(
            request, f"{updated} digest(s) will be sent by the next resume run (every 10 min)."
        )


@admin.register(PaperAlert)
class PaperAlertAdmin(admin.ModelAdmin):
    list_display = ("user", "paper", "kind", "value", "created_at", "delivery", "dismissed_at")
    list_filter = ("kind",)
    search_fields = ("user__username", "paper__arxiv_id")
    raw_id_fields = ("user", "paper", "delivery")


@admin.register(PrivateFeed)
class PrivateFeedAdmin(admin.ModelAdmin):
    list_display = ("user", "reading_list", "active", "created_at", "rotated_at", "last_read_at")
    list_filter = ("active",)
    search_fields = ("user__username",)
    raw_id_fields = ("user", "reading_list")
    readonly_fields = ("nonce", "created_at", "rotated_at", "last_read_at")
    actions = ["revoke"]

    @admin.action(description="Turn the selected feeds off")
    def revoke(self, request, queryset):
        queryset.update(active=False)
