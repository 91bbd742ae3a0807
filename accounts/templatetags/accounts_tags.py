"""Template tags for the Follow and Save buttons that topic and paper pages include."""

from __future__ import annotations

from django import template

from accounts import selectors

register = template.Library()


@register.simple_tag(takes_context=True)
def is_following(context, topic) -> bool:
    """{% is_following topic as following %}: does the signed-in person follow the topic?"""
    request = context.get("request")
    user = getattr(request, "user", None)
    return bool(user and topic is not None and selectors.is_following(user=user, topic=topic))


@register.simple_tag(takes_context=True)
def save_state(context, paper) -> dict:
    """{% save_state paper as state %}: the person's lists, and the ids of those with the paper."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if not user or not user.is_authenticated or paper is None:
        return {"lists": [], "saved_in": set()}
    return {
        "lists": selectors.reading_lists_for_user(user=user),
        "saved_in": selectors.lists_containing(user=user, arxiv_id=paper.arxiv_id),
    }
