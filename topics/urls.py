from django.urls import path
from django.views.decorators.cache import cache_page

from topics import views
from topics.feeds import FEED_CACHE_SECONDS, TopicFeed

urlpatterns = [
    path("", views.home, name="home"),
    path("topics/<slug:slug>/", views.topic_detail, name="topic-detail"),
    path(
        "topics/<slug:slug>/feed/",
        cache_page(FEED_CACHE_SECONDS)(TopicFeed()),
        name="topic-feed",
    ),
    path("areas/<slug:slug>/", views.area_detail, name="area-detail"),
]
