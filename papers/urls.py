from django.urls import path
from django.views.decorators.cache import cache_page

from papers import views
from topics.feeds import FEED_CACHE_SECONDS, SearchFeed

urlpatterns = [
    path("search/", views.search, name="search"),
    path("search/feed/", cache_page(FEED_CACHE_SECONDS)(SearchFeed()), name="search-feed"),
    # Old-style ids carry a slash (hep-th/9901001); any other form redirects to the canonical one.
    path("papers/<path:raw_id>/", views.paper_detail, name="paper-detail"),
]
