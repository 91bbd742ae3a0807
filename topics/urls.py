from django.urls import path

from topics import views
from topics.feeds import TopicFeed

urlpatterns = [
    path("", views.home, name="home"),
    path("topics/<slug:slug>/", views.topic_detail, name="topic-detail"),
    path("topics/<slug:slug>/feed/", TopicFeed(), name="topic-feed"),
    path("areas/<slug:slug>/", views.area_detail, name="area-detail"),
]
