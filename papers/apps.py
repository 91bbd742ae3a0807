from django.apps import AppConfig


class PapersConfig(AppConfig):
    name = "papers"

    def ready(self) -> None:
        from papers import receivers  # noqa: F401  (connects the signal receivers)
