"""Sending digests exactly once: claims that one worker wins, failures that never stop the batch
for others (an invalid address, a bounce, an SMTP outage), retries with backoff that show in the
admin, and the Celery tasks that drive it. Failures come from accounts.tests.mail_backends:
real mail backends that raise what smtplib raises."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts.models import DigestDelivery, DigestSettings
from accounts.services.delivery import (
    deliveries_due,
    delivery_batch_send,
    delivery_claim,
    digests_plan,
    run_pending_ids,
)
from accounts.services.digest_settings import digest_settings_update
from accounts.tests.digests_support import arrived, reader, send_digests
from accounts.tests.factories import user_create
from topics.tests.factories import topic_create

pytestmark = pytest.mark.django_db
State = DigestDelivery.State


@pytest.fixture
def topic():
    return topic_create("offline-rl", name="Offline RL")


def later(**delta):
    moment = timezone.now() + timedelta(**delta)
    return lambda: moment


def recipients() -> list[str]:
    return sorted(address for message in mail.outbox for address in message.to)


def test_planning_twice_records_one_delivery_per_person(topic):
    reader("ada", topic)
    arrived(topics=[topic])

    first = digests_plan()
    second = digests_plan()

    assert first.planned == 1
    assert second.planned == 0
    assert DigestDelivery.objects.count() == 1


def test_a_claim_is_won_once(topic):
    reader("ada", topic)
    arrived(topics=[topic])
    [delivery_id] = run_pending_ids(digests_plan())

    token = delivery_claim(delivery_id=delivery_id)

    assert token
    assert delivery_claim(delivery_id=delivery_id) is None
    delivery = DigestDelivery.objects.get()
    assert (delivery.state, delivery.claim_token, delivery.attempts) == (State.SENDING, token, 1)
    # Only once the lease has run out (its worker is presumed dead) can another take it over.
    assert delivery_claim(delivery_id=delivery_id, clock=later(minutes=16))


def test_an_invalid_address_a_bounce_and_a_dropped_connection_do_not_stop_the_others(flaky, topic):
    reader("ada", topic)  # her send meets a dropped connection
    reader("typo", topic, email="typo-at-example.org")
    reader("bounced", topic, email="gone@refused.example")
    reader("bob", topic)
    reader("cyd", topic)
    arrived(topics=[topic])
    flaky.drop_next = 1

    send_digests()

    assert recipients() == ["bob@example.org", "cyd@example.org"]
    states = dict(DigestDelivery.objects.values_list("user__username", "state"))
    assert states == {
        "ada": State.PENDING,
        "typo": State.FAILED,
        "bounced": State.FAILED,
        "bob": State.SENT,
        "cyd": State.SENT,
    }
    errors = dict(DigestDelivery.objects.values_list("user__username", "last_error"))
    assert errors["ada"].startswith("SMTPServerDisconnected")
    assert "not a valid email address" in errors["typo"]
    assert errors["bounced"].startswith("SMTPRecipientsRefused")
    assert "does not exist" in errors["bounced"]

    # The dropped one is retried after its backoff, and only then.
    assert deliveries_due() == []
    delivery_batch_send(delivery_ids=deliveries_due(now=later(hours=1)()), clock=later(hours=1))
    assert recipients() == ["ada@example.org", "bob@example.org", "cyd@example.org"]

    # The bounced address is paused: no more digests to it until the person fixes it.
    arrived(topics=[topic])
    send_digests()
    assert "gone@refused.example" not in recipients()
    bounced = DigestSettings.objects.get(user__username="bounced")
    assert bounced.bouncing
    digest_settings_update(user=bounced.user)  # they saved their settings: try again
    assert not DigestSettings.objects.get(user__username="bounced").bouncing


def test_an_smtp_outage_backs_off_and_sends_everyone_once_when_it_is_over(flaky, topic):
    for name in ("ada", "bob", "cyd", "dan", "eve"):
        reader(name, topic)
    arrived(topics=[topic])
    flaky.outage = True

    first = send_digests()

    assert mail.outbox == []
    assert "retrying 3" in first  # then the breaker: the rest are left for the resume task
    assert set(DigestDelivery.objects.values_list("state", flat=True)) == {State.PENDING}
    tried = DigestDelivery.objects.filter(attempts=1)
    assert tried.count() == 3
    first_wait = min(d.not_before for d in tried) - timezone.now()
    assert timedelta(minutes=3) < first_wait < timedelta(minutes=7)

    # Still down an hour later: the next attempt waits about twice as long.
    result = delivery_batch_send(
        delivery_ids=deliveries_due(now=later(hours=1)()), clock=later(hours=1)
    )
    assert result.retrying == 3
    again = DigestDelivery.objects.filter(attempts=2).first()
    assert again.not_before - later(hours=1)() > first_wait

    flaky.outage = False
    delivery_batch_send(delivery_ids=deliveries_due(now=later(hours=3)()), clock=later(hours=3))

    assert recipients() == [f"{n}@example.org" for n in ("ada", "bob", "cyd", "dan", "eve")]
    assert set(DigestDelivery.objects.values_list("state", flat=True)) == {State.SENT}
    assert send_digests("--resume").startswith("0 digest(s)")


def test_out_of_attempts_fails_for_good_shows_in_the_admin_and_loses_no_paper(
    flaky, topic, settings
):
    settings.DIGEST_MAX_ATTEMPTS = 2
    ada = reader("ada", topic)
    paper = arrived(topics=[topic])
    flaky.outage = True

    send_digests()
    delivery_batch_send(delivery_ids=deliveries_due(now=later(hours=1)()), clock=later(hours=1))

    delivery = DigestDelivery.objects.get()
    assert (delivery.state, delivery.attempts) == (State.FAILED, 2)
    admin = user_create("admin")
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client = Client()
    client.force_login(admin)
    page = client.get("/admin/accounts/digestdelivery/?state__exact=failed").content.decode()
    assert "ConnectionRefusedError" in page
    assert "ada" in page

    # The papers are still new for ada: the next run sends them.
    flaky.outage = False
    send_digests()
    assert recipients() == ["ada@example.org"]
    assert paper.title in mail.outbox[0].body
    assert DigestSettings.objects.get(user=ada).covered_until > delivery.window_start


def test_the_admin_retries_a_failed_digest(flaky, topic, settings):
    settings.DIGEST_MAX_ATTEMPTS = 1
    reader("ada", topic)
    arrived(topics=[topic])
    flaky.outage = True
    send_digests()
    assert DigestDelivery.objects.get().state == State.FAILED

    flaky.outage = False
    admin = user_create("admin")
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client = Client()
    client.force_login(admin)
    client.post(
        "/admin/accounts/digestdelivery/",
        {"action": "retry_now", "_selected_action": [DigestDelivery.objects.get().pk]},
    )
    send_digests("--resume")

    assert recipients() == ["ada@example.org"]


def test_turned_off_between_planning_and_sending_sends_nothing(flaky, topic):
    ada = reader("ada", topic)
    arrived(topics=[topic])
    run = digests_plan()
    digest_settings_update(user=ada, frequency="off")

    result = delivery_batch_send(delivery_ids=run_pending_ids(run))

    assert result.cancelled == 1
    assert mail.outbox == []


def test_the_scheduled_tasks_plan_and_send_in_batches(
    flaky, topic, settings, django_capture_on_commit_callbacks
):
    from accounts.tasks import resume_digests_task, send_digests_task

    settings.DIGEST_BATCH_SIZE = 2
    for name in ("ada", "bob", "cyd"):
        reader(name, topic)
    weekly = reader("weekly", topic)
    digest_settings_update(user=weekly, frequency="weekly", weekday="monday")  # not "daily"
    arrived(topics=[topic])
    flaky.drop_next = 1

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        summary = send_digests_task.delay("daily").get()

    assert "3 planned, 2 batches" in summary
    assert len(callbacks) == 2
    assert recipients() == ["bob@example.org", "cyd@example.org"]
    DigestDelivery.objects.filter(state=State.PENDING).update(not_before=timezone.now())
    with django_capture_on_commit_callbacks(execute=True):
        assert resume_digests_task.delay().get() == 1
    assert recipients() == ["ada@example.org", "bob@example.org", "cyd@example.org"]


def test_the_beat_schedule_runs_real_digest_tasks_at_the_right_times():
    from celery.schedules import crontab
    from django.conf import settings

    from config.celery import app

    app.loader.import_default_modules()
    entries = {
        name: entry
        for name, entry in settings.CELERY_BEAT_SCHEDULE.items()
        if name.startswith("accounts.")
    }
    assert {entry["task"] for entry in entries.values()} <= set(app.tasks)
    daily = entries["accounts.daily-digests"]
    assert daily["kwargs"] == {"frequency": "daily"}
    # Sun-Thu evenings, after the 20:00 announcement and the 20:30 harvest (US Eastern).
    assert daily["schedule"] == crontab(minute="30", hour="21", day_of_week="0-4")
    assert settings.CELERY_TIMEZONE == "America/New_York"
    assert entries["accounts.weekly-digests"]["kwargs"] == {"frequency": "weekly"}
    assert entries["accounts.resume-digests"]["task"] == "accounts.resume_digests"
