from django.urls import path

from papers import views
from topics.feeds import SearchFeed

urlpatterns = [
    path("search/", views.search, name="search"),
    path("search/feed/", SearchFeed(), name="search-feed"),
    # Old-style ids carry a slash (hep-th/9901001); any other form redirects to the canonical one.
    path("papers/<path:raw_id>/", views.paper_detail, name="paper-detail"),
]
