from django.contrib import admin
from django.utils import timezone

from accounts.models import ApiToken, Deletion, Follow, Hidden, Library, ListItem, ReadingList


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
    list_display = ("user", "topic", "created_at")
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
