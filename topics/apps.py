from django.apps import AppConfig


class TopicsConfig(AppConfig):
    name = "topics"

    def ready(self) -> None:
        from topics import signals  # noqa: F401  (connects the topic-edit re-tagging)
