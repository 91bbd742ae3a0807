"""Reading lists and their items with Zotero-style sync, export and import."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from accounts import selectors
from accounts.apis.base import (
    IDS_FIELD,
    INT_FIELD,
    MAX_BULK_IDS,
    ItemCursorPagination,
    PersonalApi,
    created_or_ok,
    validated,
)
from accounts.models import LIST_NAME_MAX_LENGTH, NOTE_MAX_LENGTH, Deletion, ListItem
from accounts.serializers import (
    ListItemOutput,
    ReadingListOutput,
)
from accounts.services import list_moves
from accounts.services import lists as list_services
from accounts.services.exports import ExportEntry, export_format, export_render
from accounts.services.ids import canonical_id
from config.api import CURSOR_PARAMETERS, BadRequest, page_of

# --- lists -----------------------------------------------------------------------------------

SYNC_PARAMETERS = [
    OpenApiParameter("since", int, description="only what changed after this library version"),
    OpenApiParameter(
        "If-Unmodified-Since-Version",
        int,
        location=OpenApiParameter.HEADER,
        description="writes: 412 if the library (or the object) changed after this version",
    ),
]


class ListListApi(PersonalApi):
    write_scope = "lists:write"
    allowed_params = ("since",)

    class ListCreateInput(serializers.Serializer):
        name = serializers.CharField(max_length=LIST_NAME_MAX_LENGTH)

    @extend_schema(
        summary="The caller's lists; with ?since, the changed ones and the ids of deleted ones",
        parameters=SYNC_PARAMETERS,
        responses=page_of(
            "ReadingListPage",
            ReadingListOutput,
            version=INT_FIELD,
            deleted=serializers.ListField(child=INT_FIELD, required=False),
        ),
    )
    def get(self, request):
        since = self.since(request)
        lists = selectors.reading_lists_for_user(user=request.user, since=since)
        body = {
            "results": ReadingListOutput(lists, many=True).data,
            "next": None,
            "version": selectors.library_version(user=request.user),
        }
        if since is not None:
            body["deleted"] = selectors.deleted_since(
                user=request.user, kind=Deletion.Kind.LIST, since=since
            )
        return self.with_version(Response(body))

    @extend_schema(
        summary="Create a list", request=ListCreateInput, responses={201: ReadingListOutput}
    )
    def post(self, request):
        expected = self.expected_version(request)
        data = validated(self.ListCreateInput, request.data)
        created = list_services.reading_list_create(
            user=request.user, name=data["name"], expected_version=expected
        )
        reading_list = selectors.reading_list_get(user=request.user, list_id=created.pk)
        return self.with_version(
            Response(ReadingListOutput(reading_list).data, status=status.HTTP_201_CREATED)
        )


class ListDetailApi(PersonalApi):
    write_scope = "lists:write"

    class ListUpdateInput(serializers.Serializer):
        name = serializers.CharField(max_length=LIST_NAME_MAX_LENGTH, required=False)
        position = serializers.IntegerField(min_value=0, max_value=10_000, required=False)
        is_default = serializers.BooleanField(required=False)

    @extend_schema(summary="One list", responses=ReadingListOutput)
    def get(self, request, list_id: int):
        reading_list = selectors.reading_list_get(user=request.user, list_id=list_id)
        return self.with_version(Response(ReadingListOutput(reading_list).data))

    @extend_schema(
        summary="Rename, move or make default",
        request=ListUpdateInput,
        parameters=SYNC_PARAMETERS[1:],
        responses=ReadingListOutput,
    )
    def patch(self, request, list_id: int):
        expected = self.expected_version(request)
        data = validated(self.ListUpdateInput, request.data)
        list_services.reading_list_update(
            user=request.user, list_id=list_id, expected_version=expected, **data
        )
        reading_list = selectors.reading_list_get(user=request.user, list_id=list_id)
        return self.with_version(Response(ReadingListOutput(reading_list).data))

    @extend_schema(
        summary="Delete a list and its items", parameters=SYNC_PARAMETERS[1:], responses={204: None}
    )
    def delete(self, request, list_id: int):
        expected = self.expected_version(request)
        list_services.reading_list_delete(
            user=request.user, list_id=list_id, expected_version=expected
        )
        return self.with_version(Response(status=status.HTTP_204_NO_CONTENT))


class ItemListApi(PersonalApi):
    write_scope = "lists:write"
    allowed_params = ("since", "read_state", "cursor", "limit")

    class ItemSaveInput(serializers.Serializer):
        arxiv_id = serializers.CharField(max_length=300)
        note = serializers.CharField(
            max_length=NOTE_MAX_LENGTH, required=False, allow_blank=True, trim_whitespace=False
        )
        read_state = serializers.ChoiceField(choices=ListItem.ReadState.values, required=False)

    @extend_schema(
        summary="Items of a list in the person's order; with ?since, changed items and the "
        "arXiv ids deleted from the list",
        parameters=[
            *SYNC_PARAMETERS[:1],
            OpenApiParameter("read_state", str, enum=ListItem.ReadState.values),
            *CURSOR_PARAMETERS,
        ],
        responses=page_of(
            "ListItemPage",
            ListItemOutput,
            previous=True,
            version=INT_FIELD,
            deleted=serializers.ListField(child=serializers.CharField(), required=False),
        ),
    )
    def get(self, request, list_id: int):
        since = self.since(request)
        read_state = request.query_params.get("read_state")
        if read_state and read_state not in ListItem.ReadState.values:
            raise BadRequest(
                f"read_state must be one of {', '.join(ListItem.ReadState.values)}.",
                code="invalid_read_state",
            )
        reading_list = selectors.reading_list_get(user=request.user, list_id=list_id)
        items = selectors.list_items(reading_list=reading_list, since=since, read_state=read_state)
        paginator = ItemCursorPagination()
        page = selectors.attach_papers(paginator.paginate_queryset(items, request, view=self))
        body = {
            "results": ListItemOutput(page, many=True).data,
            "next": paginator.get_next_link(),
            "previous": paginator.get_previous_link(),
            "version": selectors.library_version(user=request.user),
        }
        if since is not None:
            body["deleted"] = selectors.deleted_since(
                user=request.user, kind=Deletion.Kind.ITEM, since=since, list_id=reading_list.pk
            )
        return self.with_version(Response(body))

    @extend_schema(
        summary="Save a paper (201 created, 200 already there; any valid id, even one not "
        "harvested yet)",
        request=ItemSaveInput,
        parameters=SYNC_PARAMETERS[1:],
        responses=created_or_ok(ListItemOutput),
    )
    def post(self, request, list_id: int):
        expected = self.expected_version(request)
        data = validated(self.ItemSaveInput, request.data)
        item, created = list_services.list_item_save(
            user=request.user,
            list_id=list_id,
            arxiv_id=data["arxiv_id"],
            note=data.get("note"),
            read_state=data.get("read_state"),
            expected_version=expected,
        )
        reading_list = selectors.reading_list_get(user=request.user, list_id=list_id)
        item = selectors.list_item_get(reading_list=reading_list, arxiv_id=item.arxiv_id)
        return self.with_version(
            Response(
                ListItemOutput(item).data,
                status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
            )
        )


class ItemBulkApi(PersonalApi):
    write_scope = "lists:write"

    class ItemBulkInput(serializers.Serializer):
        arxiv_ids = serializers.ListField(
            child=serializers.CharField(max_length=300), allow_empty=False, max_length=MAX_BULK_IDS
        )

    @extend_schema(
        summary="Save many papers at once; one bad id rejects the request",
        request=ItemBulkInput,
        parameters=SYNC_PARAMETERS[1:],
        responses=created_or_ok(
            inline_serializer(
                "ItemBulkOutput",
                {
                    "created": IDS_FIELD,
                    "existing": IDS_FIELD,
                    "pending": IDS_FIELD,
                    "version": INT_FIELD,
                },
            )
        ),
    )
    def post(self, request, list_id: int):
        expected = self.expected_version(request)
        data = validated(self.ItemBulkInput, request.data)
        result = list_services.list_items_save_many(
            user=request.user,
            list_id=list_id,
            arxiv_ids=data["arxiv_ids"],
            expected_version=expected,
        )
        return self.with_version(
            Response(
                {
                    "created": [item.arxiv_id for item in result.created],
                    "existing": [item.arxiv_id for item in result.existing],
                    "pending": result.pending,
                    "version": result.version,
                },
                status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK,
            )
        )


class ItemTransferApi(PersonalApi):
    """POST .../items/move and .../items/copy: {"arxiv_ids": [...], "to": <list id>}."""

    write_scope = "lists:write"
    move = False

    class ItemTransferInput(serializers.Serializer):
        arxiv_ids = serializers.ListField(
            child=serializers.CharField(max_length=300), allow_empty=False, max_length=MAX_BULK_IDS
        )
        to = serializers.IntegerField(min_value=1)

    @extend_schema(
        summary="Copy (or move) papers with their notes to another of the caller's lists",
        request=ItemTransferInput,
        parameters=SYNC_PARAMETERS[1:],
        responses=inline_serializer(
            "ItemTransferOutput",
            {
                "copied": serializers.ListField(child=serializers.CharField(), required=False),
                "moved": serializers.ListField(child=serializers.CharField(), required=False),
                "already": IDS_FIELD,
                "version": INT_FIELD,
            },
        ),
    )
    def post(self, request, list_id: int):
        expected = self.expected_version(request)
        data = validated(self.ItemTransferInput, request.data)
        result = list_moves.list_items_transfer(
            user=request.user,
            from_list_id=list_id,
            to_list_id=data["to"],
            arxiv_ids=data["arxiv_ids"],
            move=self.move,
            expected_version=expected,
        )
        return self.with_version(
            Response(
                {
                    "moved" if self.move else "copied": result.transferred,
                    "already": result.already,
                    "version": result.version,
                }
            )
        )


class ItemMoveApi(ItemTransferApi):
    move = True


class ItemDetailApi(PersonalApi):
    write_scope = "lists:write"

    class ItemUpdateInput(serializers.Serializer):
        note = serializers.CharField(
            max_length=NOTE_MAX_LENGTH, required=False, allow_blank=True, trim_whitespace=False
        )
        read_state = serializers.ChoiceField(choices=ListItem.ReadState.values, required=False)
        position = serializers.IntegerField(min_value=0, max_value=100_000, required=False)

    def _item(self, request, list_id: int, arxiv_id: str):
        reading_list = selectors.reading_list_get(user=request.user, list_id=list_id)
        return selectors.list_item_get(reading_list=reading_list, arxiv_id=canonical_id(arxiv_id))

    @extend_schema(summary="One saved item", responses=ListItemOutput)
    def get(self, request, list_id: int, arxiv_id: str):
        return self.with_version(
            Response(ListItemOutput(self._item(request, list_id, arxiv_id)).data)
        )

    @extend_schema(
        summary="Change the note, read state or position",
        request=ItemUpdateInput,
        parameters=SYNC_PARAMETERS[1:],
        responses=ListItemOutput,
    )
    def patch(self, request, list_id: int, arxiv_id: str):
        expected = self.expected_version(request)
        data = validated(self.ItemUpdateInput, request.data)
        list_services.list_item_update(
            user=request.user, list_id=list_id, arxiv_id=arxiv_id, expected_version=expected, **data
        )
        return self.with_version(
            Response(ListItemOutput(self._item(request, list_id, arxiv_id)).data)
        )

    @extend_schema(
        summary="Remove a paper from the list",
        parameters=SYNC_PARAMETERS[1:],
        responses={204: None},
    )
    def delete(self, request, list_id: int, arxiv_id: str):
        expected = self.expected_version(request)
        list_services.list_item_delete(
            user=request.user, list_id=list_id, arxiv_id=arxiv_id, expected_version=expected
        )
        return self.with_version(Response(status=status.HTTP_204_NO_CONTENT))


def export_entries(*, reading_list) -> list[ExportEntry]:
    items = selectors.attach_papers(list(selectors.list_items(reading_list=reading_list)))
    return [
        ExportEntry(
            arxiv_id=item.arxiv_id,
            paper=item.paper,
            note=item.note,
            read_state=item.read_state,
            added_at=item.added_at,
        )
        for item in items
    ]


def export_response(*, reading_list, fmt: str) -> HttpResponse:
    rendered = export_render(entries=export_entries(reading_list=reading_list), fmt=fmt)
    response = HttpResponse(rendered.content, content_type=rendered.content_type)
    name = slugify(reading_list.name) or f"list-{reading_list.pk}"
    response["Content-Disposition"] = f'attachment; filename="{name}.{rendered.extension}"'
    return response


class ListExportApi(PersonalApi):
    allowed_params = ("format",)

    @extend_schema(
        summary="A list as BibTeX, RIS, CSL-JSON or CSV",
        parameters=[
            OpenApiParameter(
                "format", str, enum=["bibtex", "ris", "csl-json", "csv"], required=True
            )
        ],
        responses={
            (200, "application/x-bibtex"): OpenApiTypes.STR,
            (200, "application/x-research-info-systems"): OpenApiTypes.STR,
            (200, "application/vnd.citationstyles.csl+json"): {
                "type": "array",
                "items": {"type": "object"},
            },
            (200, "text/csv"): OpenApiTypes.STR,
        },
    )
    def get(self, request, list_id: int):
        fmt = export_format(request.query_params.get("format", ""))
        reading_list = selectors.reading_list_get(user=request.user, list_id=list_id)
        return export_response(reading_list=reading_list, fmt=fmt)
