"""Importing into a list (BibTeX, ids/URLs, CSV), and polling a large import's progress."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import parsers, serializers, status
from rest_framework.response import Response

from accounts import selectors
from accounts.apis.base import (
    IDS_FIELD,
    INT_FIELD,
    PersonalApi,
    PlainTextParser,
    created_or_ok,
    validated,
)
from accounts.apis.lists import SYNC_PARAMETERS
from accounts.services import import_jobs
from accounts.services import imports as import_services
from accounts.services.sync import check_unmodified
from config.api import BadRequest

IMPORT_OUTPUT = inline_serializer(
    "ImportOutput",
    {
        "format": serializers.CharField(),
        "imported": IDS_FIELD,
        "already": IDS_FIELD,
        "pending": IDS_FIELD,
        "errors": serializers.ListField(
            child=serializers.DictField(),
            help_text=f"the first {import_services.MAX_REPORTED_PROBLEMS} problems by line",
        ),
        "errors_omitted": serializers.IntegerField(help_text="problems beyond those listed"),
        "version": INT_FIELD,
    },
)
IMPORT_JOB_OUTPUT = inline_serializer(
    "ImportJobOutput",
    {
        "id": INT_FIELD,
        "list": INT_FIELD,
        "status": serializers.ChoiceField(choices=["queued", "running", "done", "failed"]),
        "progress": inline_serializer("ImportProgress", {"done": INT_FIELD, "total": INT_FIELD}),
        "result": IMPORT_OUTPUT,
        "error": serializers.CharField(allow_null=True),
    },
)


def job_url(job_id: int) -> str:
    return f"/api/v1/me/imports/{job_id}"


class ListImportApi(PersonalApi):
    write_scope = "lists:write"
    parser_classes = [parsers.JSONParser, parsers.MultiPartParser, PlainTextParser]

    class ImportInput(serializers.Serializer):
        format = serializers.CharField(max_length=20, required=False, default="auto")
        content = serializers.CharField(trim_whitespace=False, required=False)
        file = serializers.FileField(required=False)

    @extend_schema(
        summary="Import BibTeX, a list of ids/URLs, or a CSV (ours or Zotero's) into the list",
        description="JSON {format, content}, multipart {format, file}, or a text/plain body with "
        "?format=. Bad lines are reported with their numbers (the first "
        f"{import_services.MAX_REPORTED_PROBLEMS}, then a count); the rest is imported. A file "
        f"of more than {import_services.IMPORT_IN_BACKGROUND_ENTRIES} entries is imported in the "
        "background: the answer is 202 with the job, whose Location to poll.",
        request={
            "application/json": ImportInput,
            "multipart/form-data": ImportInput,
            "text/plain": str,
        },
        parameters=SYNC_PARAMETERS[1:],
        responses={**created_or_ok(IMPORT_OUTPUT), 202: IMPORT_JOB_OUTPUT},
    )
    def post(self, request, list_id: int):
        expected = self.expected_version(request)
        fmt, content = self._content(request)
        fmt, estimate = import_services.import_precheck(content=content, fmt=fmt)
        if estimate > import_services.IMPORT_IN_BACKGROUND_ENTRIES:
            # The version is checked now; the job itself writes whatever the library is then.
            check_unmodified(
                expected=expected,
                actual=selectors.library_version(user=request.user),
                what="Your library",
            )
            job = import_jobs.import_job_create(
                user=request.user, list_id=list_id, content=content, fmt=fmt
            )
            return Response(
                import_jobs.import_job_state(job=job),
                status=status.HTTP_202_ACCEPTED,
                headers={"Location": job_url(job.pk)},
            )
        report = import_services.list_import(
            user=request.user, list_id=list_id, content=content, fmt=fmt, expected_version=expected
        )
        return self.with_version(
            Response(
                report.as_dict(),
                status=status.HTTP_201_CREATED if report.imported else status.HTTP_200_OK,
            )
        )

    def _content(self, request) -> tuple[str, str]:
        if isinstance(request.data, str):
            return request.query_params.get("format", "auto"), request.data
        data = validated(self.ImportInput, request.data)
        if data.get("file") is not None:
            upload = data["file"]
            if upload.size > import_services.MAX_IMPORT_CHARS * 2:
                raise BadRequest("The file is too large to import.", code="import_too_large")
            try:
                return data["format"], upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                raise BadRequest("The file is not UTF-8 text.", code="not_utf8") from None
        if "content" not in data:
            raise BadRequest("Send the text to import as `content` or a `file`.", code="required")
        return data["format"], data["content"]


class ImportJobApi(PersonalApi):
    """A background import's status and progress; its result once done."""

    @extend_schema(
        summary="A background import: status, progress and result", responses=IMPORT_JOB_OUTPUT
    )
    def get(self, request, job_id: int):
        job = import_jobs.import_job_get(user=request.user, job_id=job_id)
        return Response(import_jobs.import_job_state(job=job))
