"""Email backends of our own for the digest tests: real Django backends (BaseEmailBackend) that
fail the way an SMTP server does, so the code under test meets real exceptions.

- `FlakyBackend` keeps what it sends in django.core.mail.outbox (like the locmem backend) and
  raises what smtplib raises: a refused recipient for addresses at `refused.example` (a hard
  bounce), a dropped connection while `FlakyBackend.outage` is on or for the next
  `FlakyBackend.drop_next` messages, and it can be slow (`delay`) to widen races.
- `DirectoryBackend` writes each message to its own .eml file in $PAPERSCOPE_TEST_MAIL_DIR, so
  another process's sends can be counted; `StallingDirectoryBackend` hangs forever before
  writing message number $PAPERSCOPE_TEST_STALL_AT, so a test can kill the process mid-batch.
"""

from __future__ import annotations

import os
import smtplib
import threading
import time
import uuid
from pathlib import Path

from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend

REFUSING_DOMAIN = "refused.example"


class FlakyBackend(BaseEmailBackend):
    outage = False  # the server is down: connecting fails
    drop_next = 0  # so many next messages fail with a dropped connection
    delay = 0.0  # seconds per message
    opened = 0
    _lock = threading.Lock()

    @classmethod
    def reset(cls) -> None:
        cls.outage, cls.drop_next, cls.delay, cls.opened = False, 0, 0.0, 0

    def open(self) -> bool:
        if FlakyBackend.outage:
            raise ConnectionRefusedError(111, "Connection refused")
        with FlakyBackend._lock:
            FlakyBackend.opened += 1
        return True

    def send_messages(self, email_messages) -> int:
        self.open()
        sent = 0
        for message in email_messages:
            if FlakyBackend.delay:
                time.sleep(FlakyBackend.delay)
            with FlakyBackend._lock:
                if FlakyBackend.drop_next > 0:
                    FlakyBackend.drop_next -= 1
                    raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
            refused = {
                address: (550, b"5.1.1 The email account that you tried to reach does not exist")
                for address in message.recipients()
                if address.lower().endswith("@" + REFUSING_DOMAIN)
            }
            if refused:
                raise smtplib.SMTPRecipientsRefused(refused)
            message.message()  # renders headers and parts, as a real backend must
            with FlakyBackend._lock:
                mail.outbox.append(message)
            sent += 1
        return sent


class DirectoryBackend(BaseEmailBackend):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.folder = Path(os.environ["PAPERSCOPE_TEST_MAIL_DIR"])

    def send_messages(self, email_messages) -> int:
        for message in email_messages:
            self.before_write()
            data = message.message().as_bytes()
            temporary = self.folder / f".{uuid.uuid4().hex}.tmp"
            temporary.write_bytes(data)
            temporary.rename(self.folder / f"{uuid.uuid4().hex}.eml")  # appears whole or not
        return len(email_messages)

    def before_write(self) -> None:
        return None


class StallingDirectoryBackend(DirectoryBackend):
    def before_write(self) -> None:
        stall_at = int(os.environ.get("PAPERSCOPE_TEST_STALL_AT", "0"))
        if stall_at and len(list(self.folder.glob("*.eml"))) + 1 == stall_at:
            (self.folder / "stalled").write_text(str(os.getpid()))
            while True:  # a worker stuck mid-send, until the test kills it
                time.sleep(1)
