from django.urls import path

from topics.apis import TopicDetailApi, TopicListApi, TopicPapersApi

urlpatterns = [
    path("topics", TopicListApi.as_view(), name="api-topic-list"),
    path("topics/<slug:slug>", TopicDetailApi.as_view(), name="api-topic-detail"),
    path("topics/<slug:slug>/papers", TopicPapersApi.as_view(), name="api-topic-papers"),
]
