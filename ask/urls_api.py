from django.urls import path

from ask.apis import PaperAskApi, TopicAskApi

urlpatterns = [
    path("topics/<slug:slug>/ask", TopicAskApi.as_view(), name="api-topic-ask"),
    path("papers/<path:raw_id>/ask", PaperAskApi.as_view(), name="api-paper-ask"),
]
