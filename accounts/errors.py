"""Domain errors of the accounts services. Each carries the HTTP status and the stable `code` the
API answers with; pages show `detail` to the person."""

from __future__ import annotations


class AccountsError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, detail: str, *, code: str | None = None, **extra) -> None:
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        self.extra = extra


class InvalidInput(AccountsError):
    status = 400
    code = "invalid"


class NotFoundError(AccountsError):
    """Missing, or not the caller's: the two are never told apart."""

    status = 404
    code = "not_found"


class Conflict(AccountsError):
    status = 409
    code = "conflict"


class VersionConflict(AccountsError):
    """If-Unmodified-Since-Version named an older version than the one stored."""

    status = 412
    code = "version_conflict"
