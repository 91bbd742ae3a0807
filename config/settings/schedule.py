"""What beat runs and when (CELERY_BEAT_SCHEDULE, read by config.settings.base). The crontabs
read in arXiv's own time zone (CELERY_TIMEZONE, US Eastern): announcements go out Sun-Thu 20:00."""

from __future__ import annotations

from celery.schedules import crontab

CELERY_BEAT_SCHEDULE = {
    # https://crontab.guru/#30_20_*_*_0-4 : half an hour after each announcement
    "papers.harvest-rss-after-announcement": {
        "task": "papers.harvest_rss",
        "schedule": crontab(minute="30", hour="20", day_of_week="0-4"),
    },
    # https://crontab.guru/#15_*/6_*_*_* : catch up on a missed announcement within hours
    "papers.harvest-rss-catch-up": {
        "task": "papers.harvest_rss",
        "schedule": crontab(minute="15", hour="*/6"),
    },
    # https://crontab.guru/#40_*_*_*_* : OpenAlex enrichment of papers still due (a batch lost
    # to a fault, works OpenAlex had not indexed yet); new papers are enriched after each harvest
    "papers.enrich-sweep": {
        "task": "papers.enrich",
        "schedule": crontab(minute="40"),
    },
    # https://crontab.guru/#0_3_*_*_* : nightly OAI-PMH catch-up (versions, late ranges)
    "papers.harvest-oai-nightly": {
        "task": "papers.harvest_oai",
        "schedule": crontab(minute="0", hour="3"),
    },
    # https://crontab.guru/#*/10_*_*_*_* : on-demand fetches whose back-off is over, and the
    # queue's purge of what arXiv does not know (papers.services.lookup)
    "papers.fetch-pending-due": {
        "task": "papers.fetch_pending",
        "schedule": crontab(minute="*/10"),
    },
    # https://crontab.guru/#5-59/10_*_*_*_* : tag papers whose tagging task was lost (a worker
    # killed mid-batch, a queue lost with Redis) half an hour after they were stored
    "topics.tag-stragglers": {
        "task": "topics.tag_stragglers",
        "schedule": crontab(minute="5-59/10"),
    },
    # https://crontab.guru/#*_*_*_*_* : the refined tagging stage, newest first, a bounded batch
    # a minute (topics.services.tagging.papers_refine); nothing to do costs one query
    "topics.refine-tags": {
        "task": "topics.refine_tags",
        "schedule": crontab(minute="*"),
    },
    # https://crontab.guru/#*/5_*_*_*_* : Ask's passages of papers stored since (newest first), so
    # that a question on a large topic does not wait for its papers to be indexed
    "ask.index-passages": {
        "task": "ask.index_passages",
        "schedule": crontab(minute="*/5"),
    },
    # https://crontab.guru/#30_4_*_*_* : nightly tagger retrain; refits only when at least 50
    # new judgements arrived since the last one (topics.services.retrain)
    "topics.retrain-tagger-nightly": {
        "task": "topics.retrain_tagger",
        "schedule": crontab(minute="30", hour="4"),
    },
    # https://crontab.guru/#0_6_*_*_6 : weekly emerging-topic proposals, Saturday morning after
    # the week's last announcement (Thursday evening)
    "topics.propose-topics-weekly": {
        "task": "topics.propose_topics",
        "schedule": crontab(minute="0", hour="6", day_of_week="6"),
    },
    # https://crontab.guru/#30_21_*_*_0-4 : daily digests an hour after the RSS harvest of each
    # announcement (Sun-Thu 20:00), when its papers are stored and tagged
    "accounts.daily-digests": {
        "task": "accounts.send_digests",
        "schedule": crontab(minute="30", hour="21", day_of_week="0-4"),
        "kwargs": {"frequency": "daily"},
    },
    # https://crontab.guru/#30_21_*_*_* : weekly digests, to those whose chosen day it is
    "accounts.weekly-digests": {
        "task": "accounts.send_digests",
        "schedule": crontab(minute="30", hour="21"),
        "kwargs": {"frequency": "weekly"},
    },
    # https://crontab.guru/#*/10_*_*_*_* : retry failed sends whose backoff is over, and resume
    # digests a killed worker had claimed
    "accounts.resume-digests": {
        "task": "accounts.resume_digests",
        "schedule": crontab(minute="*/10"),
    },
}
